/**
 * The half pairings PairingService notes in memory (a peer calling as paired while this Hub's
 * request to it still waits) were never forgotten: every request the peer had acted on kept its
 * entry after it was confirmed, rejected, unpaired or expired, for as long as the Hub ran. The
 * read the status routes make, notesOn(id).approvedThereAt, shows whether an entry is still held.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { farIdentity, heldPairing, PEER } from './held-peer-calls.fixture.js';
import { PAIRING_REQUEST_TTL_MS } from './pairing-service.js';

/** A waiting request whose peer has been seen calling as paired. */
function halfPairedThere() {
  const held = heldPairing();
  const row = held.outboundRequest();
  held.pairing.noteApprovedThere(row);
  assert.notEqual(held.pairing.notesOn(row.id).approvedThereAt, null, 'the half pairing is noted while the request waits');
  return { ...held, row };
}

describe('a half pairing noted for a request is forgotten once the request stops waiting', () => {
  it('when the peer confirms it', async () => {
    const { pairing, store, row } = halfPairedThere();
    await pairing.receiveConfirm(row, { token: randomBytes(32).toString('base64url'), ...farIdentity() });
    assert.equal(store.get(row.id)?.status, 'connected');
    assert.equal(pairing.notesOn(row.id).approvedThereAt, null);
  });

  it('when the peer rejects it', () => {
    const { pairing, row } = halfPairedThere();
    pairing.receiveRemoval(row, 'reject');
    assert.equal(pairing.notesOn(row.id).approvedThereAt, null);
  });

  it('when the peer unpairs', () => {
    const { pairing, row } = halfPairedThere();
    pairing.receiveRemoval(row, 'unpair');
    assert.equal(pairing.notesOn(row.id).approvedThereAt, null);
  });

  it('when the operator here cancels it', async () => {
    const { pairing, row } = halfPairedThere();
    await pairing.unpair(row);
    assert.equal(pairing.notesOn(row.id).approvedThereAt, null);
  });

  it('when it expires unanswered', () => {
    const { pairing, clock, row } = halfPairedThere();
    clock.advance(PAIRING_REQUEST_TTL_MS);
    assert.deepEqual(pairing.sweep(), [PEER]);
    assert.equal(pairing.notesOn(row.id).approvedThereAt, null);
  });

  it('when its row went some other way, at the next sweep', () => {
    const { pairing, store, row } = halfPairedThere();
    store.delete(row.id);
    pairing.sweep();
    assert.equal(pairing.notesOn(row.id).approvedThereAt, null);
  });

  it('and not before: a request still waiting keeps its note through a sweep', () => {
    const { pairing, row } = halfPairedThere();
    pairing.sweep();
    assert.notEqual(pairing.notesOn(row.id).approvedThereAt, null);
  });
});
