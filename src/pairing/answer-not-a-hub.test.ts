/**
 * A pairing request answered 200 by something that is not a Hub (a web app published at the
 * name, a page with an SPA fallback) was sent to nobody: the requester keeps no row and says so,
 * with or without a PIN. A Hub's answer always says `received: true`; one that took a PIN also
 * names its identity.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { farIdentity, heldPairing, PEER } from './held-peer-calls.fixture.js';

async function answered(json: unknown, pin?: string) {
  const { store, pairing, nextCall } = heldPairing();
  const sending = pairing.requestPairing(PEER, pin);
  (await nextCall('/pair/request')).answer({ ok: true, status: 200, headers: {}, json, auth: 'none' });
  const result = await sending.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { result, store };
}

describe('a 200 to a pairing request that is no pairing answer', () => {
  for (const [what, json] of [
    ['an HTML page (not JSON)', null],
    ['an empty object', {}],
    ['other JSON', { status: 'ok', received: 'yes' }],
  ] as const) {
    for (const pin of [undefined, '123456']) {
      it(`${what}, ${pin === undefined ? 'without' : 'with'} a PIN: refused as no Hub, and no row is kept`, async () => {
        const { result, store } = await answered(json, pin);
        assert.equal(result.ok, false, JSON.stringify(result));
        const err = (result as { error: unknown }).error;
        assert.ok(err instanceof HubError);
        assert.equal(err.code, 'HUB_ERR_PEER_UNREACHABLE');
        assert.match(err.message, /something other than a Hub answered at https:\/\/hub-b\.tail0\.ts\.net/);
        assert.equal(store.byFqdn(PEER), null);
      });
    }
  }

  it("a Hub's answers are taken: received without a PIN, and with one its identity", async () => {
    const plain = await answered({ received: true });
    assert.equal(plain.result.ok, true);
    assert.equal(plain.store.byFqdn(PEER)?.status, 'pending');
    const withPin = await answered({ received: true, nodeFqdn: PEER, ...farIdentity() }, '123456');
    assert.equal(withPin.result.ok, true);
    assert.equal(withPin.store.byFqdn(PEER)?.pinVerified, true);
  });
});
