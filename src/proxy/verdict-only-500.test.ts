/**
 * Only a 500's body is read for a verdict on the request. A 502, 503 or 504 is a node or a proxy
 * in front of it failing, whatever its body says, and fails over as it always did: read as a
 * verdict, one engine's gateway error carrying a refusal's words would end the walk with a 400.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { localCandidate, NO_USER_TURN_MODEL, noUserTurnThroughWalk, rawEngine } from './walk.fixture.js';

const VERDICT_BODY = JSON.stringify({ error: 'no user query found in messages' });
const SERVED = JSON.stringify({ model: NO_USER_TURN_MODEL, message: { role: 'assistant', content: 'hello' }, done: true });

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
      const {
        status: answered,
        body,
        settled: s,
      } = await noUserTurnThroughWalk([localCandidate('ollama-1', failing.url), localCandidate('ollama-2', next.url)]);
      assert.equal(answered, 200, body);
      assert.equal(body, SERVED);
      assert.equal(next.asked(), 1);
      assert.deepEqual(
        s.failures.map((f) => f.failure),
        [{ kind: 'status', status, peerRefused: false }],
      );
    });
  }
});
