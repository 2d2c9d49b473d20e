/**
 * A per-peer disable (spec "Kill switches", the fifth level) on two real Hubs polling each other
 * every 10 s. Hub A disables B: from that moment A sends B no work and serves none of B's, yet it
 * keeps polling B and shows it connected and taking work, while B, from its next poll of A, shows
 * A as taking none. Each Hub's dashboard says what is true on its side. Nothing of the pairing is
 * touched, so enabling B again routes to it at once, without re-pairing or waiting for a poll.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, header, LONG_TEST_TIMEOUT_MS, POOL_API, usePool } from '../helpers/pool-fixture.js';

const A_ONLY = 'a-only:8b';
const B_ONLY = 'b-only:8b';
const POLL_SECONDS = 10;
const WITHIN_A_POLL_MS = (POLL_SECONDS + 5) * 1000;

describe('a peer disabled on one Hub', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: [A_ONLY] } }, b: { ollama: { models: [B_ONLY] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it('stops work both ways while the poll and the pairing go on, and comes back at once when enabled', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    assert.equal(header(await chat(a, B_ONLY), 'x-hub-pool-served-by'), b.name);
    assert.equal(header(await chat(b, A_ONLY), 'x-hub-pool-served-by'), a.name);
    const before = (await a.peer(b))!;
    const aEngine = a.engines.ollama!;
    const bEngine = b.engines.ollama!;

    assert.equal((await a.api('POST', `${POOL_API}/peers/${before.id}/disable`)).status, 200);
    try {
      // Outbound: A drops B from its candidates on the spot, with no poll in between.
      const bServed = bEngine.state().requests;
      assert.equal((await chat(a, B_ONLY)).status, 502, 'a model only B holds has no candidate on A');
      // Inbound: whatever B last heard, A serves none of its work (a 503 from /local/* until B's next poll).
      const aServed = aEngine.state().requests;
      assert.equal((await chat(b, A_ONLY)).status, 502, 'a model only A holds has no node to serve it for B');

      // A keeps polling B, and B answers as it always did: connected, taking work, disabled here.
      const polled = await a.nextPoll(b, WITHIN_A_POLL_MS);
      assert.deepEqual(
        { status: polled.status, enabled: polled.enabled, acceptingWork: polled.acceptingWork, probeFailure: polled.probeFailure, authMode: polled.authMode },
        { status: 'connected', enabled: false, acceptingWork: true, probeFailure: null, authMode: before.authMode },
      );
      // B sees A as a healthy peer that takes no work from it, and routes around it.
      const seenFromB = await b.waitForPeer(a, 'taking no work', (p) => p.acceptingWork === false, WITHIN_A_POLL_MS);
      assert.deepEqual(
        { status: seenFromB.status, enabled: seenFromB.enabled, backends: seenFromB.backends },
        { status: 'connected', enabled: true, backends: [] },
      );
      assert.equal((await chat(b, A_ONLY)).status, 502);
      assert.equal(aEngine.state().requests, aServed, "none of B's work reached A's engine");
      assert.equal(bEngine.state().requests, bServed, "none of A's work reached B's engine");
    } finally {
      assert.equal((await a.api('POST', `${POOL_API}/peers/${before.id}/enable`)).status, 200);
    }

    // The pairing, its credentials and A's last snapshot of B were all kept: B serves A's work again at once.
    const back = await chat(a, B_ONLY);
    assert.equal(back.status, 200, back.text);
    assert.equal(header(back, 'x-hub-pool-served-by'), b.name);
    await b.waitForPeer(a, 'taking work again', (p) => p.acceptingWork === true, WITHIN_A_POLL_MS);
    assert.equal(header(await chat(b, A_ONLY), 'x-hub-pool-served-by'), a.name);
  });
});
