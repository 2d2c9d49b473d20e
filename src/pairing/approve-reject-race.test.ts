/**
 * Approve and reject (or unpair, or a second approve) of one inbound request at once. Reject used
 * to delete the row only after telling the requester (up to 10 s), and approve never looked at
 * the row again after its callback, so approve connected a request being rejected, or reported
 * "callback failed" for a row that was gone and the CLI advised unpairing a half pairing that did
 * not exist. Two approves each issued a token and sent a confirmation, and the row kept only the
 * later token's hash.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { hashToken } from '../peer-auth/peer-guard.js';
import { farIdentity, heldPairing } from './held-peer-calls.fixture.js';

function conflict(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.equal(err.code, 'HUB_ERR_CONFLICT');
    assert.match(err.message, pattern);
    return true;
  };
}

describe('approving a request while it is being rejected', () => {
  it('is refused as a conflict and sends no confirmation: the reject claimed the row first', async () => {
    const { store, pairing, calls, nextCall, inboundRequest } = heldPairing();
    const row = inboundRequest();
    const rejecting = pairing.reject(row);
    const told = await nextCall('/pair/reject');
    assert.equal(store.get(row.id), null, 'the row is gone while the requester is being told');
    await assert.rejects(pairing.approve(row), conflict(/removed while approving/));
    told.answer({ ok: true, status: 200, headers: {}, json: {}, auth: 'none' });
    assert.deepEqual(await rejecting, { notified: true });
    assert.deepEqual(
      calls.map((c) => c.path),
      ['/api/inference/pool/pair/reject'],
      'no confirmation went out',
    );
  });
});

describe('a request unpaired while its approval calls the requester back', () => {
  it('answers a conflict, not a failed callback that advises unpairing a half pairing', async () => {
    const { store, pairing, nextCall, inboundRequest } = heldPairing();
    const row = inboundRequest();
    const approving = pairing.approve(row);
    const callback = await nextCall('/pair/confirm');
    await pairing.unpair(store.get(row.id)!);
    callback.answer({ ok: false, error: 'no answer within 10 s', auth: 'none', unsent: null });
    await assert.rejects(approving, conflict(/removed while approving it .*nothing is paired on this Hub/));
    assert.equal(store.get(row.id), null);
  });
});

describe('two approves of one request at once (two operators, or a double click)', () => {
  it('connects once: the other is refused as approved meanwhile, and one token is issued, sent and held', async () => {
    const { store, pairing, calls, nextCall, inboundRequest } = heldPairing();
    const row = inboundRequest();
    const requester = farIdentity();
    // Both start from the row as it was read, pending, as two routes that read it at once do.
    const approvals = Promise.allSettled([pairing.approve(row), pairing.approve(row)]);
    const confirm = await nextCall('/pair/confirm');
    confirm.answer({ ok: true, status: 200, headers: {}, json: requester, auth: 'none' });
    // A second approve that sent its own confirmation (with a token of its own) would wait on it
    // for ever here: that call is the failure.
    const outcomes = await Promise.race([approvals, nextCall('/pair/confirm', 2).then(() => assert.fail('the second approve sent a confirmation of its own'))]);

    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o) => o.status === 'rejected');
    assert.equal(won.length, 1, 'exactly one approve succeeds');
    assert.equal(won[0]!.value.callback, 'confirmed');
    assert.equal(lost.length, 1);
    conflict(/approved meanwhile \(it is inbound connected\)/)(lost[0]!.reason);
    assert.equal((lost[0]!.reason as HubError).status, 409, 'what the approve route answers');
    assert.deepEqual(
      calls.map((c) => c.path),
      ['/api/inference/pool/pair/confirm'],
      'one confirmation went out',
    );

    // Whole on both sides: the requester holds the one token sent, which is the one this Hub
    // accepts, and this Hub pinned the identity the requester answered with.
    const token = (confirm.body as { token: string }).token;
    const held = store.get(row.id)!;
    assert.equal(held.status, 'connected');
    assert.equal(held.issuedTokenHash, hashToken(token), 'the token sent is the token held');
    assert.deepEqual([held.peerNodeUuid, held.peerPublicKey], [requester.nodeUuid, requester.publicKey]);
    assert.equal(held.confirmFailedAt, null, 'not half paired');
    assert.deepEqual(won[0]!.value.peer, held);
  });
});

describe('two unpairs of one pairing at once (a double click, or the CLI beside the dashboard)', () => {
  it('tells the peer once; the other is refused as gone, not answered as a peer never told', async () => {
    const { store, pairing, calls, nextCall } = heldPairing();
    const { nodeUuid, publicKey } = farIdentity();
    const row = store.insert({
      nodeFqdn: 'hub-b.tail0.ts.net',
      direction: 'outbound',
      status: 'connected',
      peerNodeUuid: nodeUuid,
      peerPublicKey: publicKey,
      pinVerified: true,
      issuedTokenHash: null,
      presentTokenSealed: null,
      createdAt: new Date(0).toISOString(),
      expiresAt: null,
    });
    const first = pairing.unpair(row);
    await nextCall('/pair/unpair');
    const second = pairing.unpair(row);
    // Every call out is answered, so a second one, had it gone out, could not hold the test.
    for (const call of calls) call.answer({ ok: true, status: 200, headers: {}, json: { removed: true }, auth: 'signed' });
    await assert.rejects(second, conflict(/is gone: it was unpaired or removed meanwhile/));
    assert.deepEqual(await first, { notified: true });
    assert.equal(calls.filter((c) => c.path.endsWith('/pair/unpair')).length, 1, 'the peer was told once');
    assert.equal(store.get(row.id), null);
  });
});
