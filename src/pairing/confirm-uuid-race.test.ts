/**
 * A confirmation and a PIN request that claim the same node UUID, meeting. The requester checks
 * that no other row holds the UUID a confirmation pins, and seals the token it carries; a PIN
 * request from another name with that UUID can arrive while the sealing runs. The confirmation
 * must then be refused as the conflict it is (409, naming the clash), with its row left as it
 * was, instead of meeting the database's unique index on the UUID (a 500).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HubError } from '../errors.js';
import { farIdentity, heldPairing } from './held-peer-calls.fixture.js';

const OTHER = 'hub-c.tail0.ts.net';
const token = () => randomBytes(32).toString('base64url');

/** Holds the next token sealing until `release` is called; `entered` resolves once it has begun. */
function holdNextSeal(identity: ReturnType<typeof heldPairing>['identity']) {
  const realSeal = identity.sealToken.bind(identity);
  let release!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const began = new Promise<void>((r) => (entered = r));
  identity.sealToken = async (t: string) => {
    identity.sealToken = realSeal;
    entered();
    await gate;
    return realSeal(t);
  };
  return { entered: began, release };
}

describe('a confirmation meeting a PIN request for the same node UUID', () => {
  it('refuses the confirmation with a conflict naming the UUID clash, and leaves its request as it was', async () => {
    const held = heldPairing();
    const far = farIdentity();
    const waiting = held.outboundRequest();
    await held.identity.load();
    const { pin } = held.pin.mint();
    const seal = holdNextSeal(held.identity);

    const confirming = held.pairing.receiveConfirm(waiting, { token: token(), ...far });
    await seal.entered;
    await held.pairing.receiveRequest({ body: { fromNodeFqdn: OTHER, token: token(), pin, ...far }, sourceIp: null });
    seal.release();

    await assert.rejects(confirming, (err: unknown) => {
      assert.ok(err instanceof HubError, `a catalogued error, not ${String(err)}`);
      assert.equal(err.code, 'HUB_ERR_CONFLICT');
      assert.equal(err.status, 409);
      assert.match(err.message, /node UUID is already pinned to another peer/);
      return true;
    });
    const after = held.store.get(waiting.id)!;
    assert.deepEqual(
      [after.status, after.peerNodeUuid, after.peerPublicKey, after.presentTokenSealed],
      ['pending', null, null, null],
      'nothing of the confirmation was written',
    );
    assert.equal(held.store.byUuid(far.nodeUuid)?.nodeFqdn, OTHER, 'the PIN request keeps the UUID it claimed');
  });
});
