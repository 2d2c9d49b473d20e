/**
 * How much of an engine's 500 the walk reads for a verdict on the request: the first 64 KiB, for
 * at most 5 s (request-verdict.ts). Past either the answer is no verdict and the request moves on,
 * as any 500 does. readWithin's bounds are tested in relay-body.test.ts; these pin that the walk
 * reads a verdict's body with those bounds, over real sockets, with a definitive verdict (one
 * that would otherwise go back to the app at once).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { localCandidate as candidate, NO_USER_TURN_MODEL, noUserTurnThroughWalk, rawEngine } from './walk.fixture.js';
import { VERDICT_BODY_LIMIT_BYTES } from './request-verdict.js';

const VERDICT = 'no user query found in messages';
const SERVED = JSON.stringify({ model: NO_USER_TURN_MODEL, message: { role: 'assistant', content: 'hello' }, done: true });

/** Ollama's error shape carrying the verdict, padded with another field to exactly `bytes` bytes. */
function verdictBody(bytes: number): string {
  const bare = JSON.stringify({ error: VERDICT, pad: '' });
  return JSON.stringify({ error: VERDICT, pad: 'x'.repeat(bytes - bare.length) });
}

describe('the 500 body the walk reads for a verdict', () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });

  async function engine(answer: (req: IncomingMessage, res: ServerResponse) => void) {
    const e = await rawEngine(answer);
    closers.push(e.close);
    return e;
  }

  const served = () => engine((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(SERVED));

  it('reads a verdict of exactly 64 KiB and answers it at once', async () => {
    assert.equal(VERDICT_BODY_LIMIT_BYTES, 64 * 1024, 'the bound this test is sized to');
    const refuses = await engine((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end(verdictBody(64 * 1024)));
    const next = await served();
    const r = await noUserTurnThroughWalk([candidate('refuses', refuses.url), candidate('next', next.url)]);
    assert.equal(r.status, 400, r.body.slice(0, 200));
    assert.equal(r.body.length, 64 * 1024, "the engine's own body, whole");
    assert.equal(next.asked(), 0, 'no node could have answered it: nobody else is asked');
  });

  it('takes a verdict one byte over 64 KiB for no verdict: the request moves on to the next candidate', async () => {
    const refuses = await engine((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end(verdictBody(64 * 1024 + 1)));
    const next = await served();
    const r = await noUserTurnThroughWalk([candidate('refuses', refuses.url), candidate('next', next.url)]);
    assert.equal(r.status, 200, r.body.slice(0, 200));
    assert.equal(r.body, SERVED);
    assert.deepEqual(
      r.settled.failures.map((f) => f.failure),
      [{ kind: 'engine-500', signature: null }],
    );
  });

  // Streamed, so nothing else bounds the body's wait (a non-streamed read is also cut at the
  // request's budget, 300 s or more): only the verdict read's own 5 s ends it.
  it("takes a streamed request's verdict whose body stops arriving for no verdict: after its 5 s the request moves on", { timeout: 30_000 }, async () => {
    const stalls = await engine((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': 200 });
      res.write(`{"error":"${VERDICT}"`); // and never the rest
    });
    const next = await served();
    const r = await noUserTurnThroughWalk([candidate('stalls', stalls.url), candidate('next', next.url)], { stream: true });
    assert.equal(r.status, 200, r.body.slice(0, 200));
    assert.equal(r.body, SERVED);
    assert.deepEqual(
      r.settled.failures.map((f) => f.failure),
      [{ kind: 'engine-500', signature: null }],
    );
  });
});
