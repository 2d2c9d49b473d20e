/**
 * Approve and reject (or unpair) of one inbound request at once. Reject used to delete the row
 * only after telling the requester (up to 10 s), and approve never looked at the row again after
 * its callback, so approve connected a request being rejected, or reported "callback failed" for
 * a row that was gone and the CLI advised unpairing a half pairing that did not exist.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { heldPairing } from './held-peer-calls.fixture.js';

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
