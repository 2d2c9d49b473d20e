/**
 * The requesting Hub's side of a confirmation (spec, "Upgrading an existing bearer pairing";
 * docs/peer-protocol.md, "Upgrade and grace"). After a request without a PIN, the requester first
 * hears the approver's key on /pair/confirm, a request: it cannot know its answer, which carries
 * its own key, arrived. So it pins the key, keeps presenting its bearer token, and opens a grace
 * window of ten minutes or four health polls, whichever is longer, counted from the confirmation.
 * After a PIN request the key came in the answer to it, so the requester signs at once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { outboundAuthMode } from '../peers/auth-mode.js';
import type { PeerClient } from '../peers/peer-client.js';
import { farIdentity, heldPairing, PEER } from './held-peer-calls.fixture.js';

type CallResult = Awaited<ReturnType<PeerClient['call']>>;
const answered = (json: unknown): CallResult => ({ ok: true, status: 200, headers: {}, json, auth: 'none' }) as CallResult;

/** This Hub asks PEER to pair (with `pin`, or without) and PEER takes the request. */
async function requested(held: ReturnType<typeof heldPairing>, far: { nodeUuid: string; publicKey: string }, pin?: string) {
  const asking = held.pairing.requestPairing(PEER, pin);
  (await held.nextCall('/pair/request')).answer(answered(pin === undefined ? { received: true } : { received: true, nodeFqdn: PEER, ...far }));
  return (await asking).peer;
}

/** The approval arrives some minutes after the request, so a window counted from the request would show. */
const APPROVED_AFTER_MS = 7 * 60_000;

describe('the requesting Hub, confirmed', () => {
  for (const [pollSeconds, graceMinutes] of [
    [30, 10],
    [300, 20],
  ] as const)
    it(`after a request without a PIN, keeps its bearer token for ${graceMinutes} minutes at ${pollSeconds} s polls`, async () => {
      const held = heldPairing({ pollSeconds });
      const far = farIdentity();
      const row = await requested(held, far);
      held.clock.advance(APPROVED_AFTER_MS);
      const confirmedAt = held.clock.nowMs();
      await held.pairing.receiveConfirm(row, { token: randomBytes(32).toString('base64url'), ...far });

      const after = held.store.get(row.id)!;
      assert.deepEqual([after.status, after.peerNodeUuid, after.peerPublicKey], ['connected', far.nodeUuid, far.publicKey]);
      assert.equal(after.bearerGraceUntil, new Date(confirmedAt + graceMinutes * 60_000).toISOString());
      assert.equal(outboundAuthMode(after, false), 'bearer', 'learned from a request: the token stays in use through the window');
    });

  it('after a PIN request, keeps no token the confirmation could be made with: only the pinned key confirms', async () => {
    const held = heldPairing();
    const row = await requested(held, farIdentity(), '123456');
    assert.deepEqual([row.pinVerified, held.store.get(row.id)!.issuedTokenHash], [true, null]);
  });

  it('after a request without a PIN, keeps the token its bearer confirmation is checked against', async () => {
    const held = heldPairing();
    const row = await requested(held, farIdentity());
    assert.notEqual(held.store.get(row.id)!.issuedTokenHash, null);
  });

  it('after a PIN request, opens no window and signs at once', async () => {
    const held = heldPairing();
    const far = farIdentity();
    const row = await requested(held, far, '123456');
    held.clock.advance(APPROVED_AFTER_MS);
    await held.pairing.receiveConfirm(row, { token: randomBytes(32).toString('base64url'), ...far });

    const after = held.store.get(row.id)!;
    assert.deepEqual([after.status, after.bearerGraceUntil], ['connected', null]);
    assert.equal(outboundAuthMode(after, false), 'signed');
  });
});
