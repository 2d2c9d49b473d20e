/**
 * A pairing request by name goes only to a name under this Hub's tailnet suffix: the far Hub
 * refuses a requester outside its own suffix, so any other name (a LAN host typed into the
 * dashboard's name field, say) could never pair by name. It is refused before anything is
 * stored or sent, with the way to pair such a Hub: by address for a LAN host, and none for a Hub
 * on another tailnet, which has to join this one first.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { heldPairing } from './held-peer-calls.fixture.js';

describe("a pairing request by name outside this Hub's tailnet", () => {
  it('refuses a LAN host name before storing or sending anything, naming the address path', async () => {
    const { store, pairing, calls } = heldPairing();
    await assert.rejects(pairing.requestPairing('nas.lan', undefined), (err: unknown) => {
      assert.ok(err instanceof HubError);
      assert.equal(err.code, 'HUB_ERR_PAIR_OUTSIDE_TAILNET');
      assert.match(err.message, /not a name on this Hub's tailnet \(tail0\.ts\.net\).*cihub pool probe nas\.lan/);
      return true;
    });
    assert.equal(store.byFqdn('nas.lan'), null);
    assert.deepEqual(calls, []);
  });

  it('refuses a name on another tailnet as such, naming both tailnets, and offers no LAN pairing', async () => {
    const { store, pairing, calls } = heldPairing();
    await assert.rejects(pairing.requestPairing('hub-b.tail9.ts.net', undefined), (err: unknown) => {
      assert.ok(err instanceof HubError);
      assert.equal(err.code, 'HUB_ERR_PAIR_OUTSIDE_TAILNET');
      assert.match(err.message, /^hub-b\.tail9\.ts\.net is on another tailnet \(tail9\.ts\.net\) than this Hub \(tail0\.ts\.net\); .*same tailnet/);
      assert.doesNotMatch(err.message, /LAN|probe|address/);
      return true;
    });
    assert.equal(store.byFqdn('hub-b.tail9.ts.net'), null);
    assert.deepEqual(calls, []);
  });
});

describe('a pairing request whose name is not text', () => {
  it('says what it got instead of calling the name missing', async () => {
    const { pairing } = heldPairing();
    await assert.rejects(pairing.requestPairing(['hub-b.tail0.ts.net'], undefined), /nodeFqdn must be a string; got \["hub-b\.tail0\.ts\.net"\]/);
  });
});
