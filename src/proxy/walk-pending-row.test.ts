/**
 * A streamed answer's row while the stream is still running. The row stays pending until the
 * body ends, which on a long answer is minutes; it must already say which attempt is answering
 * and what was passed over to reach it, not an empty failover list that fills in only at the end.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { RoutingLog } from '../routing-log/ring.js';
import { systemClock } from '../util/clock.js';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate, startWalkApp, walkDeps, type WalkApp } from './walk.fixture.js';
import type { WalkDeps } from './walk-types.js';

const MODEL = 'qwen3:8b';
const chat = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;
const frame = (done: boolean) => `${JSON.stringify({ model: MODEL, message: { role: 'assistant', content: done ? '' : 'hi' }, done })}\n`;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the row of a stream that failed over, while the stream runs', () => {
  let settled: () => void;
  const rowSettled = new Promise<void>((resolve) => (settled = resolve));
  const log = new RoutingLog({ size: 16, clock: systemClock, onSettle: () => settled() });
  let deps: WalkDeps;
  let app: WalkApp;
  let engine: Server;
  /** Ends the held stream; set when the engine has sent its first frame. */
  let finish: (() => void) | null = null;

  before(async () => {
    // An engine that sends its headers and one frame, then holds the rest until the test lets it go.
    engine = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(frame(false));
      finish = () => res.end(frame(true));
    });
    const engineUrl = await listen(engine);
    // A port that refuses: listen, note it, close.
    const closed = createServer();
    const deadUrl = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    deps = walkDeps({ rows: log });
    const order = [localCandidate('ollama-1', deadUrl), localCandidate('ollama-2', engineUrl)];
    app = await startWalkApp(deps, () => ({ route: chat, model: MODEL, stream: true, order }));
  });
  after(async () => {
    finish?.();
    await app.close();
    await deps.dispatcher.close();
    engine.closeAllConnections();
    await new Promise<void>((resolve) => engine.close(() => resolve()));
  });

  it('names the attempt answering and the engine passed over before the stream ends, as the settled row does', async () => {
    log.open({ id: 'r', direction: 'outbound', path: chat.path, model: MODEL, candidates: 2, stream: true, bodyBytes: 0, budgetMs: 10_000 });
    const res = await request(`${app.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.statusCode, 200);
    // The app has its headers and the engine holds the rest of the body: the row is mid-stream.
    const during = log.get('r')!;
    assert.equal(during.outcome, 'pending');
    assert.deepEqual([during.node, during.backendId, during.attempt, during.failedOverFrom], ['local', 'ollama-2', 2, ['local']]);
    assert.deepEqual(
      during.attempts.map((a) => [a.node, a.backend, a.status]),
      [['local', 'ollama', null]],
    );
    assert.match(during.attempts[0]!.reason, /ECONNREFUSED/);

    finish!();
    await res.body.text();
    await rowSettled;
    const after = log.get('r')!;
    assert.equal(after.outcome, 'served');
    assert.deepEqual([after.attempt, after.failedOverFrom, after.attempts], [during.attempt, during.failedOverFrom, during.attempts]);
  });
});
