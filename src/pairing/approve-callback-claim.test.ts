/**
 * What an approval learns from the requester's answer to its confirmation: the requester's node
 * UUID and key, pinned so this side signs at once. An answer that names this Hub's own UUID
 * names no peer (the receiving side of an upgrade refuses the same claim), so nothing is pinned
 * and the pairing stays on its tokens instead of being bound to itself. And what status makes of
 * the approval while that call is out: the row is marked half paired before it goes out, so a
 * crash leaves the mark, but the mark is a finding only once the call has failed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pairingProblem } from '../peers/pairing-problem.js';
import { SELF, farIdentity, heldPairing } from './held-peer-calls.fixture.js';
import { PairingService } from './pairing-service.js';

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

describe('an approval while its call back is out', () => {
  const problemOf = (h: ReturnType<typeof heldPairing>, id: string) => pairingProblem(h.store.get(id)!, SELF, h.pairing.notesOn(id))?.kind ?? null;

  it('is not reported half paired until the call back has failed', async () => {
    const h = heldPairing();
    const row = h.inboundRequest();
    const approving = h.pairing.approve(row);
    const confirm = await h.nextCall('/pair/confirm');
    assert.notEqual(h.store.get(row.id)?.confirmFailedAt, null, 'the row is marked before the call goes out');
    assert.equal(problemOf(h, row.id), null, 'no finding while the call is out');
    confirm.answer({ ok: false, error: 'no answer within 10 s', auth: 'none', unsent: null });
    assert.equal((await approving).callback, 'failed');
    assert.equal(problemOf(h, row.id), 'half_paired_here');
  });

  it('is reported half paired by a Hub that stopped during the call (the mark is on disk, the call is not)', async () => {
    const h = heldPairing();
    const row = h.inboundRequest();
    void h.pairing.approve(row);
    await h.nextCall('/pair/confirm');
    const restarted = new PairingService(h.deps);
    assert.equal(pairingProblem(h.store.get(row.id)!, SELF, restarted.notesOn(row.id))?.kind, 'half_paired_here');
  });
});
