/**
 * A pairing request and an approval's call back give the other Hub ten seconds (docs/errors.md,
 * HUB_ERR_PEER_UNREACHABLE): long enough for a Hub that has just joined the tailnet to get its first
 * certificate, short enough that an operator who selected Pair learns the outcome while still
 * looking. PeerClient enforces the budget it is handed (peer-client.test.ts); this checks the
 * budget the service hands it. A request that gets no answer leaves no row behind. The length is
 * written out here, not read from the service's constant, so a change to the constant shows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { heldPairing, PEER } from './held-peer-calls.fixture.js';

const TEN_SECONDS_MS = 10_000;

describe('the time a pairing call gives the other Hub', () => {
  it('a pairing request waits ten seconds for its answer, and one that gets none is gone from this Hub', async () => {
    const { pairing, store, nextCall } = heldPairing();
    const asking = pairing.requestPairing(PEER, undefined);
    const request = await nextCall('/pair/request');
    assert.equal(request.options.timeoutMs, TEN_SECONDS_MS);
    request.answer({ ok: false, error: 'no answer within 10 s', auth: 'none', unsent: null });
    await assert.rejects(asking);
    assert.equal(store.byFqdn(PEER), null);
  });

  it('a request carrying a PIN waits ten seconds too', async () => {
    const { pairing, nextCall } = heldPairing();
    const asking = pairing.requestPairing(PEER, '123456');
    const request = await nextCall('/pair/request');
    assert.equal(request.options.timeoutMs, TEN_SECONDS_MS);
    request.answer({ ok: false, error: 'no answer within 10 s', auth: 'none', unsent: null });
    await assert.rejects(asking);
  });

  it("an approval's call back to the requester waits ten seconds", async () => {
    const { pairing, nextCall, inboundRequest } = heldPairing();
    const approving = pairing.approve(inboundRequest());
    const confirm = await nextCall('/pair/confirm');
    assert.equal(confirm.options.timeoutMs, TEN_SECONDS_MS);
    confirm.answer({ ok: false, error: 'no answer within 10 s', auth: 'none', unsent: null });
    assert.equal((await approving).callback, 'failed');
  });
});
