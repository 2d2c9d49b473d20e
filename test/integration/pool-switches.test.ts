/**
 * The kill switches as the rest of the pool sees them (issue 4, spec "Kill switches"), on
 * three real Hubs polling each other every 10 s. Inbound off means "still in the pool, not
 * serving right now": peers keep the pairing, stop sending work on their next poll, get 503
 * (never 403) from /local/* until then, and the Hub keeps using them. HUB_POOL_USER_DISABLED
 * means "I have left the pool": /capabilities answers 503, peers mark the Hub unreachable
 * after three polls, and it is back on the first poll after the flag goes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, header, LONG_TEST_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';

const A_ONLY = 'a-only:8b';
const B_ONLY = 'b-only:8b';
const BC = 'bc:8b'; // on B and C; B ranks first on A on a tie (A paired with B first)
const C_ONLY = 'c-only:8b';
const POLL_SECONDS = 10;
const UNREACHABLE_WITHIN_MS = (3 + 1.5) * POLL_SECONDS * 1000;

describe('kill switches across the pool', () => {
  const pool = usePool<'a' | 'b' | 'c'>({
    hubs: {
      a: { ollama: { models: [A_ONLY] } },
      b: { ollama: { models: [BC, B_ONLY] } },
      c: { ollama: { models: [BC, C_ONLY] } },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it(
    'inbound off: peers route around the Hub on their next poll, get 503 until then, and the Hub still uses them',
    { timeout: LONG_TEST_TIMEOUT_MS },
    async () => {
      const { a, b, c } = pool();
      assert.equal(header(await chat(a, BC), 'x-hub-pool-served-by'), b.name, 'B ranks first for the shared model while it takes work');

      // Switch B's inbound off just after A polled it, so A acts on its old snapshot for a while.
      await a.nextPoll(b, (POLL_SECONDS + 5) * 1000);
      await b.patchSettings({ poolInboundEnabled: false });
      try {
        const bRequests = b.engines.ollama!.state().requests;

        // Until A's next poll, A still offers B the work; B's /local/* refuses it with 503, not 403.
        const early = await chat(a, BC);
        assert.equal(early.status, 200, early.text);
        assert.equal(header(early, 'x-hub-pool-served-by'), c.name);
        const earlyRow = await a.settledRow(String(header(early, 'x-hub-pool-request-id')));
        assert.deepEqual(earlyRow.failedOverFrom, [b.name]);
        assert.equal(earlyRow.attempts[0]?.status, 503);
        assert.doesNotMatch(earlyRow.attempts[0]?.reason ?? '', /refused this Hub/, 'read as "not now", not as a broken pairing');
        assert.ok((await a.peer(b))?.backends !== null, "A keeps B's capabilities: a 503 says nothing about the pairing");

        // A's next poll reads acceptingWork: false. B stays connected, with an empty offer.
        const notAccepting = await a.waitForPeer(b, 'not accepting work', (p) => p.acceptingWork === false, (POLL_SECONDS + 5) * 1000);
        assert.equal(notAccepting.status, 'connected');
        const routedAround = await chat(a, BC);
        assert.equal(header(routedAround, 'x-hub-pool-served-by'), c.name);
        const row = await a.settledRow(String(header(routedAround, 'x-hub-pool-request-id')));
        assert.deepEqual(row.failedOverFrom, [], 'B is not even tried');
        assert.equal(row.candidates, 1);
        assert.equal((await chat(a, B_ONLY)).status, 502, 'a model only B holds has no candidate while B takes no work');
        assert.equal(b.engines.ollama!.state().requests, bRequests, "no work reached B's engine");

        // B still sends its own apps' work to its peers, and serves them from its own engines.
        assert.equal(header(await chat(b, C_ONLY), 'x-hub-pool-served-by'), c.name);
        assert.equal(header(await chat(b, A_ONLY), 'x-hub-pool-served-by'), a.name);
        assert.equal(header(await chat(b, B_ONLY), 'x-hub-pool-served-by'), 'local');
      } finally {
        await b.patchSettings({ poolInboundEnabled: true });
      }
    },
  );

  it(
    'HUB_POOL_USER_DISABLED: peers mark the Hub unreachable after three polls on its 503, and take it back once the flag goes',
    { timeout: LONG_TEST_TIMEOUT_MS },
    async () => {
      const { a, b, c } = pool();
      // Killed, not stopped: a stopped Hub says it is leaving, and its peers would drop it at once
      // instead of on the 503s this test is about.
      await c.restart({ HUB_POOL_USER_DISABLED: 'true' }, 'SIGKILL');

      // The Hub behaves as if it had no peers, and still serves its own engines.
      const status = await c.status();
      assert.equal(status.disabledBy, 'env');
      assert.equal(status.routingActive, false);
      assert.equal((await chat(c, B_ONLY)).status, 502);
      assert.equal(header(await chat(c, C_ONLY), 'x-hub-pool-served-by'), 'local');

      const [fromA, fromB] = await Promise.all([
        a.waitForPeer(c, 'unreachable', (p) => p.status === 'unreachable', UNREACHABLE_WITHIN_MS),
        b.waitForPeer(c, 'unreachable', (p) => p.status === 'unreachable', UNREACHABLE_WITHIN_MS),
      ]);
      assert.ok(fromA && fromB);
      assert.match(a.log(), /capabilities probe of hub-c\.tail0\.ts\.net failed: HTTP 503/, "C's /capabilities answered 503");
      assert.equal((await chat(a, C_ONLY)).status, 502, 'C is no longer a candidate');
      // The flag is C's alone: A and B are still pooling, and still route to each other.
      assert.equal((await a.status()).enabled, true);
      assert.equal(header(await chat(a, B_ONLY), 'x-hub-pool-served-by'), b.name);
      assert.equal(header(await chat(b, A_ONLY), 'x-hub-pool-served-by'), a.name);

      // The pairing was kept: without the flag, the next poll brings C back by itself.
      await c.restart();
      await waitConnected(a, c, (POLL_SECONDS + 5) * 1000);
      const back = await chat(a, C_ONLY);
      assert.equal(back.status, 200, back.text);
      assert.equal(header(back, 'x-hub-pool-served-by'), c.name);
    },
  );
});
