/**
 * An unanswered pairing request lives 24 hours (spec, "Pairing"; docs/peer-protocol.md, "Pairing
 * handshake"): the sweep drops it once that much time has passed since it was taken, on the Hub
 * asked and on the Hub asking, so a name squatted by a request cannot block the real device for
 * longer. The length is written out here rather than read from the service's constant, so a
 * change to the constant shows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { PeerClient } from '../peers/peer-client.js';
import { heldPairing, PEER } from './held-peer-calls.fixture.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('a pairing request nobody answers', () => {
  it('waits 24 hours on the Hub it was sent to, then the sweep drops it', async () => {
    const { pairing, store, clock } = heldPairing();
    const receivedAt = clock.nowMs();
    assert.deepEqual(await pairing.receiveRequest({ body: { fromNodeFqdn: PEER, token: randomBytes(32).toString('base64url') }, sourceIp: null }), {
      received: true,
    });
    const row = store.byFqdn(PEER);
    assert.deepEqual([row?.direction, row?.status, row?.expiresAt], ['inbound', 'pending', new Date(receivedAt + DAY_MS).toISOString()]);

    clock.advance(DAY_MS - 1);
    assert.deepEqual(pairing.sweep(), [], 'a millisecond short of 24 hours, it still waits');
    assert.equal(store.byFqdn(PEER)?.status, 'pending');
    clock.advance(1);
    assert.deepEqual(pairing.sweep(), [PEER]);
    assert.equal(store.byFqdn(PEER), null);
  });

  it('waits 24 hours on the Hub that sent it, too', async () => {
    const { pairing, store, clock, nextCall } = heldPairing();
    const sentAt = clock.nowMs();
    const asking = pairing.requestPairing(PEER, undefined);
    (await nextCall('/pair/request')).answer({ ok: true, status: 200, headers: {}, json: { received: true }, auth: 'none' } as Awaited<
      ReturnType<PeerClient['call']>
    >);
    const { peer } = await asking;
    assert.equal(peer.expiresAt, new Date(sentAt + DAY_MS).toISOString());

    clock.advance(DAY_MS - 1);
    assert.deepEqual(pairing.sweep(), []);
    clock.advance(1);
    assert.deepEqual(pairing.sweep(), [PEER]);
    assert.equal(store.get(peer.id), null);
  });
});
