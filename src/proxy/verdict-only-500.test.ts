/**
 * Only a 500's body is read for a verdict on the request. A 502, 503 or 504 is a node or a proxy
 * in front of it failing, whatever its body says, and fails over as it always did: read as a
 * verdict, one engine's gateway error carrying a refusal's words would end the walk with a 400.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate, rawEngine, startWalkApp, walkDeps } from './walk.fixture.js';
import type { WalkSettled } from './walk-types.js';

const MODEL = 'qwen3:8b';
const chat = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;
const VERDICT_BODY = JSON.stringify({ error: 'no user query found in messages' });
const SERVED = JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'hello' }, done: true });

describe('a verdict-shaped body on a status other than 500', () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers) await close();
  });

  async function engine(answer: (req: IncomingMessage, res: ServerResponse) => void) {
    const e = await rawEngine(answer);
    closers.push(e.close);
    return e;
  }

  for (const status of [502, 503, 504]) {
    it(`fails a ${status} over to the next candidate, its body unread`, async () => {
      const failing = await engine((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(VERDICT_BODY));
      const next = await engine((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(SERVED));
      let settle!: (s: WalkSettled) => void;
      const settled = new Promise<WalkSettled>((resolve) => (settle = resolve));
      const deps = walkDeps({ observers: [{ onSettled: (s) => settle(s) }] });
      const order = [localCandidate('ollama-1', failing.url), localCandidate('ollama-2', next.url)];
      const app = await startWalkApp(deps, () => ({ route: chat, model: MODEL, order }));
      closers.push(async () => {
        await app.close();
        await deps.dispatcher.close();
      });

      const res = await request(`${app.url}/api/chat`, {
        method: 'POST',
        body: JSON.stringify({ model: MODEL, stream: false, messages: [{ role: 'system', content: 'no user turn' }] }),
      });
      const body = await res.body.text();
      const s = await settled;
      assert.equal(res.statusCode, 200, body);
      assert.equal(body, SERVED);
      assert.equal(next.asked(), 1);
      assert.deepEqual(
        s.failures.map((f) => f.failure),
        [{ kind: 'status', status, peerRefused: false }],
      );
    });
  }
});
