/**
 * A pairing started while the identity rotates. Rotation tells each peer it is unpaired (calls
 * that can take seconds) and then deletes every row. A request received, or an approval made, in
 * between used to be taken with the key about to be destroyed, then deleted with the rest: the
 * requester kept a pairing pinned to a dead key, and the rotation's answer did not name it among
 * the peers it unpaired.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HubError } from '../errors.js';
import { insertBearerOnly } from '../store/peer-row.fixture.js';
import { heldPairing, PEER } from './held-peer-calls.fixture.js';

const OTHER = 'hub-c.tail0.ts.net';

function rotating(err: unknown): boolean {
  assert.ok(err instanceof HubError);
  assert.equal(err.code, 'HUB_ERR_CONFLICT');
  assert.match(err.message, /rotating its identity key/);
  return true;
}

function rotationUnderway() {
  const held = heldPairing();
  insertBearerOnly(held.store, { nodeFqdn: PEER, direction: 'outbound', createdAt: new Date(held.clock.nowMs()).toISOString() });
  return { ...held, rotation: held.pairing.rotateIdentity() };
}

describe('a pairing started while the identity is being rotated', () => {
  it('refuses a pairing request that arrives while the peers are being told, and leaves no row for it', async () => {
    const { store, pairing, nextCall, rotation } = rotationUnderway();
    const unpairCall = await nextCall('/pair/unpair');
    await assert.rejects(pairing.receiveRequest({ body: { fromNodeFqdn: OTHER, token: randomBytes(32).toString('base64url') }, sourceIp: null }), rotating);
    unpairCall.answer({ ok: true, status: 200, headers: {}, json: {}, auth: 'bearer' });
    const done = await rotation;
    assert.deepEqual(done.unpaired, [PEER]);
    assert.deepEqual(store.list(), [], 'no pairing survives a rotation, and none was made with the old key');
  });

  it('refuses to approve a waiting request while the peers are being told, and changes nothing of it', async () => {
    const { store, pairing, nextCall, rotation } = rotationUnderway();
    const unpairCall = await nextCall('/pair/unpair');
    const waiting = store.insert({
      nodeFqdn: OTHER,
      direction: 'inbound',
      status: 'pending',
      peerNodeUuid: null,
      peerPublicKey: null,
      pinVerified: false,
      issuedTokenHash: null,
      presentTokenSealed: null,
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    await assert.rejects(pairing.approve(waiting), rotating);
    assert.equal(store.get(waiting.id)?.status, 'pending', 'the refused approval changed nothing');
    unpairCall.answer({ ok: true, status: 200, headers: {}, json: {}, auth: 'bearer' });
    await rotation;
  });

  it('refuses a second rotation while the first one runs', async () => {
    const { pairing, nextCall, rotation } = rotationUnderway();
    const unpairCall = await nextCall('/pair/unpair');
    await assert.rejects(pairing.rotateIdentity(), rotating);
    unpairCall.answer({ ok: false, status: 0, headers: {}, json: null, auth: 'bearer' } as never);
    const done = await rotation;
    assert.deepEqual(done.notReached, [PEER]);
  });

  it('takes pairing requests again once the rotation has finished', async () => {
    const { store, pairing, nextCall, rotation } = rotationUnderway();
    (await nextCall('/pair/unpair')).answer({ ok: true, status: 200, headers: {}, json: {}, auth: 'bearer' });
    await rotation;
    await pairing.receiveRequest({ body: { fromNodeFqdn: OTHER, token: randomBytes(32).toString('base64url') }, sourceIp: null });
    assert.deepEqual(
      store.list().map((r) => [r.nodeFqdn, r.status]),
      [[OTHER, 'pending']],
    );
  });

  it('refuses an approval whose identity read was under way when the rotation began', async () => {
    const { store, pairing, calls, inboundRequest } = heldPairing();
    const waiting = inboundRequest();
    const approving = pairing.approve(waiting);
    const rotation = pairing.rotateIdentity();
    await assert.rejects(approving, rotating);
    await rotation;
    assert.equal(store.list().length, 0);
    assert.deepEqual(
      calls.filter((c) => c.path.endsWith('/pair/confirm')),
      [],
      'no confirmation went out',
    );
  });

  it('refuses a pairing request by name whose identity read was under way when the rotation began', async () => {
    const { store, pairing } = heldPairing();
    const sending = pairing.requestPairing(OTHER, null);
    const rotation = pairing.rotateIdentity();
    await assert.rejects(sending, rotating);
    await rotation;
    assert.deepEqual(store.list(), []);
  });

  it('refuses a received pairing request whose token was being sealed when the rotation began', async () => {
    const { store, pairing } = heldPairing();
    const receiving = pairing.receiveRequest({ body: { fromNodeFqdn: OTHER, token: randomBytes(32).toString('base64url') }, sourceIp: null });
    const rotation = pairing.rotateIdentity();
    await assert.rejects(receiving, rotating);
    await rotation;
    assert.deepEqual(store.list(), []);
  });
});
