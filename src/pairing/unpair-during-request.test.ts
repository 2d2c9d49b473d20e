/**
 * The operator cancels (unpairs) a pairing request while it is still being sent. The answer used
 * to be written back to the row the cancel had deleted, so the request answered 500 (a TypeError
 * reading the missing row) and the far Hub kept a request no one here wanted.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { farIdentity, heldPairing, PEER } from './held-peer-calls.fixture.js';

describe('a PIN pairing request unpaired while it is being sent', () => {
  it('answers a conflict saying it was cancelled, and withdraws it from the far Hub with a signed unpair', async () => {
    const { store, pairing, nextCall } = heldPairing();
    const far = farIdentity();
    const sending = pairing.requestPairing(PEER, '123456');
    const request = await nextCall('/pair/request');
    const unpaired = await pairing.unpair(store.byFqdn(PEER)!);
    assert.equal(unpaired.notified, false, 'nothing to tell yet: no key of the far Hub is known');
    request.answer({ ok: true, status: 200, headers: {}, json: { nodeFqdn: PEER, ...far }, auth: 'none' });

    const withdraw = await nextCall('/pair/unpair');
    assert.deepEqual([withdraw.peer.peerNodeUuid, withdraw.peer.peerPublicKey], [far.nodeUuid, far.publicKey], 'signed with the key just learned');
    withdraw.answer({ ok: true, status: 200, headers: {}, json: {}, auth: 'signed' });
    await assert.rejects(sending, (err: unknown) => {
      assert.ok(err instanceof HubError);
      assert.equal(err.code, 'HUB_ERR_CONFLICT');
      assert.match(err.message, /cancelled on this Hub while it was being sent; it has been withdrawn there too/);
      return true;
    });
    assert.equal(store.byFqdn(PEER), null, 'no row is left behind');
  });
});
