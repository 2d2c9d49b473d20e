/**
 * A pairing request by name goes only to a name under this Hub's tailnet suffix: the far Hub
 * refuses a requester outside its own suffix, so any other name (a LAN host typed into the
 * dashboard's name field, say) could never pair by name. It is refused before anything is
 * stored or sent, with the way to pair such a Hub.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { heldPairing } from './held-peer-calls.fixture.js';

describe("a pairing request by name outside this Hub's tailnet", () => {
  for (const name of ['nas.lan', 'hub-b.tail9.ts.net']) {
    it(`refuses ${name} before storing or sending anything, naming the address path`, async () => {
      const { store, pairing, calls } = heldPairing();
      await assert.rejects(pairing.requestPairing(name, undefined), (err: unknown) => {
        assert.ok(err instanceof HubError);
        assert.equal(err.code, 'HUB_ERR_PAIR_OUTSIDE_TAILNET');
        assert.match(err.message, /not a name on this Hub's tailnet \(tail0\.ts\.net\).*cihub pool probe/);
        return true;
      });
      assert.equal(store.byFqdn(name), null);
      assert.deepEqual(calls, []);
    });
  }
});

describe('a pairing request whose name is not text', () => {
  it('says what it got instead of calling the name missing', async () => {
    const { pairing } = heldPairing();
    await assert.rejects(pairing.requestPairing(['hub-b.tail0.ts.net'], undefined), /nodeFqdn must be a string; got \["hub-b\.tail0\.ts\.net"\]/);
  });
});
