/**
 * The answer to a PIN pairing request names the Hub that took the PIN. Its name is the far
 * Hub's claim, repeated in the error the operator reads (CLI, dashboard): it is read as a peer
 * name like any other, so a name with terminal escapes or of tens of KiB is never echoed, and
 * the same name in another spelling is not taken for another Hub.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { farIdentity, heldPairing, PEER } from './held-peer-calls.fixture.js';

/** Sends a PIN request, answers it naming the far Hub `nodeFqdn`, and answers a withdrawal if one is made. */
async function answeredAs(nodeFqdn: unknown) {
  const { store, pairing, nextCall, calls } = heldPairing();
  const sending = pairing.requestPairing(PEER, '123456');
  (await nextCall('/pair/request')).answer({ ok: true, status: 200, headers: {}, json: { nodeFqdn, ...farIdentity() }, auth: 'none' });
  const outcome = sending.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const withdrawn = await Promise.race([nextCall('/pair/unpair').then(() => true), outcome.then(() => false)]);
  if (withdrawn) (await nextCall('/pair/unpair')).answer({ ok: true, status: 200, headers: {}, json: {}, auth: 'signed' });
  return { result: await outcome, store, calls };
}

describe('a PIN answer naming the Hub that took the PIN', () => {
  it('does not repeat a name that is no peer name (control characters, tens of KiB) in the refusal', async () => {
    const claimed = `evil\u001b]0;owned\u0007\u001b[2J${'x'.repeat(60_000)}.tail0.ts.net`;
    const { result, store } = await answeredAs(claimed);
    assert.equal(result.ok, false);
    const err = (result as { error: unknown }).error;
    assert.ok(err instanceof HubError);
    assert.equal(err.code, 'HUB_ERR_CONFLICT');
    assert.doesNotMatch(err.message, /[\u0000-\u001f]|x{100}/);
    assert.match(err.message, /calls itself \(no usable name\)/);
    assert.ok(err.message.length < 1_000, `the refusal stays a sentence (${err.message.length} characters)`);
    assert.equal(store.byFqdn(PEER), null, 'no row is left behind');
  });

  it('takes the asked name in another spelling (upper case, a trailing dot) as the Hub asked', async () => {
    const { result, store } = await answeredAs(`${PEER.toUpperCase()}.`);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(store.byFqdn(PEER)?.pinVerified, true);
  });
});
