/**
 * What an approval learns from the requester's answer to its confirmation: the requester's node
 * UUID and key, pinned so this side signs at once. An answer that names this Hub's own UUID
 * names no peer (the receiving side of an upgrade refuses the same claim), so nothing is pinned
 * and the pairing stays on its tokens instead of being bound to itself.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { farIdentity, heldPairing } from './held-peer-calls.fixture.js';

describe("an approval's confirmation answer", () => {
  it("pins the requester's UUID and key it names", async () => {
    const { store, pairing, nextCall, inboundRequest } = heldPairing();
    const row = inboundRequest();
    const requester = farIdentity();
    const approving = pairing.approve(row);
    (await nextCall('/pair/confirm')).answer({ ok: true, status: 200, headers: {}, json: requester, auth: 'none' });
    await approving;
    assert.deepEqual([store.get(row.id)?.peerNodeUuid, store.get(row.id)?.peerPublicKey], [requester.nodeUuid, requester.publicKey]);
  });

  it("pins nothing when it names this Hub's own UUID", async () => {
    const { store, pairing, nextCall, inboundRequest } = heldPairing();
    const row = inboundRequest();
    const approving = pairing.approve(row);
    const confirm = await nextCall('/pair/confirm');
    const own = (confirm.body as { nodeUuid: string }).nodeUuid;
    confirm.answer({ ok: true, status: 200, headers: {}, json: { nodeUuid: own, publicKey: farIdentity().publicKey }, auth: 'none' });
    const { callback } = await approving;
    assert.equal(callback, 'confirmed');
    assert.deepEqual([store.get(row.id)?.status, store.get(row.id)?.peerNodeUuid, store.get(row.id)?.peerPublicKey], ['connected', null, null]);
  });

  it('takes a 200 that is not a JSON object (a web page at the name) as a failed call back, not a confirmation', async () => {
    for (const json of [null, 'ok', [1]]) {
      const { store, pairing, nextCall, inboundRequest } = heldPairing();
      const row = inboundRequest();
      const approving = pairing.approve(row);
      (await nextCall('/pair/confirm')).answer({ ok: true, status: 200, headers: {}, json, auth: 'none' });
      const { callback, reason } = await approving;
      assert.equal(callback, 'failed', JSON.stringify(json));
      assert.match(reason ?? '', /HTTP 200 without a confirmation answer/);
      assert.notEqual(store.get(row.id)?.confirmFailedAt, null, 'kept as half paired, so status names the fix');
    }
  });

  it("takes an older Hub's empty object as a confirmation", async () => {
    const { pairing, nextCall, inboundRequest } = heldPairing();
    const approving = pairing.approve(inboundRequest());
    (await nextCall('/pair/confirm')).answer({ ok: true, status: 200, headers: {}, json: {}, auth: 'none' });
    assert.equal((await approving).callback, 'confirmed');
  });
});
