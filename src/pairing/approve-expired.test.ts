/**
 * Approving a request whose time is up. A request waits 24 hours; the sweep that drops it runs
 * once a minute, so for up to a minute an expired request is still listed. An approval in that
 * minute used to go through: it issued a token and called a requester whose own row (taken a
 * moment earlier, so expiring first) may already be gone, leaving this Hub half paired. The row
 * here is a 60 s request on a manual clock.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { heldPairing, PEER } from './held-peer-calls.fixture.js';

const REQUEST_TTL_MS = 60_000;

describe('approving a request at the end of its wait', () => {
  it('is refused once its expiry has come, removes it, and sends no confirmation', async () => {
    const { store, pairing, calls, clock, nextCall, inboundRequest } = heldPairing();
    const row = inboundRequest();
    clock.advance(REQUEST_TTL_MS);
    // Whichever comes first: the refusal, or a confirmation on its way (which the test never answers).
    const outcome = await Promise.race([
      pairing.approve(row).then(
        () => 'approved',
        (err: unknown) => err,
      ),
      nextCall('/pair/confirm').then(() => 'a confirmation was sent'),
    ]);
    assert.ok(outcome instanceof HubError, String(outcome));
    assert.equal(outcome.code, 'HUB_ERR_CONFLICT');
    assert.equal(
      outcome.message,
      `the request from ${PEER} expired at ${row.expiresAt} and has been removed; nothing is paired. To pair, send a new request from ${PEER} (cihub pool pair hub-a.tail0.ts.net there)`,
    );
    assert.equal(store.get(row.id), null, 'the expired request is gone, as the sweep would have left it');
    assert.deepEqual(calls, [], 'no confirmation went out');
  });

  it('goes ahead a millisecond before its expiry', async () => {
    const { store, pairing, clock, nextCall, inboundRequest } = heldPairing();
    const row = inboundRequest();
    clock.advance(REQUEST_TTL_MS - 1);
    const approving = pairing.approve(row);
    (await nextCall('/pair/confirm')).answer({ ok: true, status: 200, headers: {}, json: {}, auth: 'bearer' });
    assert.equal((await approving).callback, 'confirmed');
    assert.equal(store.get(row.id)?.status, 'connected');
  });
});
