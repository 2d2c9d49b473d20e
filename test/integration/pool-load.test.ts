/**
 * The load a Hub publishes to its peers (issue 4, spec "Ranking"): the inFlightRequests figure
 * in its capabilities is what the ranker on every other Hub reads as that Hub's queue beyond
 * their own forwards, so it must count the work on this Hub's own engines, and nothing else.
 * Work a Hub forwarded on to another peer is load on that peer, which publishes it itself.
 * Three real Hubs polling every 10 s; one request held open B -> C.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeldRequests, LONG_TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const HOLD = 'c-hold:1b'; // on C only; C's engine never answers it
const POLL_SECONDS = 10;

describe('the load a Hub publishes', () => {
  const pool = usePool<'a' | 'b' | 'c'>({
    hubs: {
      a: { ollama: { models: ['a-only:8b'] } },
      b: { ollama: { models: ['b-only:8b'] } },
      c: { ollama: { models: [HOLD] } },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it('counts the work on its own engines, not what it forwarded to another peer', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    const { a, b, c } = pool();
    const engine = c.engines.ollama!;
    await engine.setFault({ mode: 'hang', model: HOLD });
    const held = new HeldRequests(b, HOLD, { servedBy: engine });
    try {
      await held.hold(1);
      assert.equal((await b.status()).localNode.queueDepth, 0, "B's own engines are idle: the request runs on C");

      const [cAsSeen, bAsSeen] = await Promise.all([a.nextPoll(c, (POLL_SECONDS + 5) * 1000), a.nextPoll(b, (POLL_SECONDS + 5) * 1000)]);
      assert.equal(cAsSeen.inFlightRequests, 1, 'C publishes the request its engine is serving');
      assert.equal(bAsSeen.inFlightRequests, 0, 'B publishes no load for a request it only forwarded: counted on B too, A would read it twice');
    } finally {
      await held.releaseAll();
      await engine.clearFaults();
    }
  });
});
