/**
 * Queue depth is the proxy's own count: one for each request it handed to an engine, given back
 * when the response has finished, not when its headers arrived. A stream's engine is busy for the
 * whole generation; released at the headers, a node mid-answer would rank as idle and take the
 * next request into a queue the ranker never saw.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { InFlight } from './in-flight.js';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate, startWalkApp, walkDeps, type WalkApp } from './walk.fixture.js';
import type { WalkDeps, WalkSettled } from './walk-types.js';

const MODEL = 'qwen3:8b';
const chat = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;
const frame = (done: boolean) => `${JSON.stringify({ model: MODEL, message: { role: 'assistant', content: done ? '' : 'hi' }, done })}\n`;

describe("an engine's queue-depth count while its answer streams", () => {
  const inFlight = new InFlight();
  let engine: Server;
  let held: ServerResponse | null = null;
  let deps: WalkDeps;
  let app: WalkApp;
  let settle!: (s: WalkSettled) => void;
  const settled = new Promise<WalkSettled>((resolve) => (settle = resolve));

  before(async () => {
    engine = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write(frame(false));
        held = res;
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
    deps = walkDeps({ inFlight, observers: [{ onSettled: (s) => settle(s) }] });
    app = await startWalkApp(deps, () => ({ route: chat, model: MODEL, stream: true, order: [localCandidate('ollama-1', url)] }));
  });
  after(async () => {
    held?.end();
    await app.close();
    await deps.dispatcher.close();
    engine.closeAllConnections();
    await new Promise<void>((resolve) => engine.close(() => resolve()));
  });

  it('is held from the hand-off until the body has ended, and given back then', async () => {
    assert.equal(inFlight.count('ollama-1'), 0);
    const res = await request(`${app.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.statusCode, 200);
    const reader = res.body[Symbol.asyncIterator]();
    let text = '';
    while (!text.endsWith('\n')) text += ((await reader.next()).value as Buffer).toString();
    // The app has its headers and the first frame; the engine is still generating.
    assert.equal(inFlight.count('ollama-1'), 1, 'the engine still counts as busy mid-answer');

    held!.end(frame(true));
    for (let next = await reader.next(); !next.done; next = await reader.next()) text += (next.value as Buffer).toString();
    await settled;
    assert.equal(inFlight.count('ollama-1'), 0, 'given back once the response finished');
  });
});
