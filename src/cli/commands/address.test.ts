/**
 * The pair command `cihub pool probe` prints must be one `cihub pool pair` reads as an address:
 * only the address path sends the PIN to the host that was probed (spec: "Finding a peer by
 * address" accepts a host name for the probe, and pairs with what the probe found).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAddressTarget, pairTargetFor } from './address.js';

describe('the pair command a probe advises', () => {
  it('keeps what the operator typed when pair already reads it as an address', () => {
    for (const given of ['192.168.1.42', '192.168.1.42:5002', 'fd12::7', '[fd12::7]:3000', 'nas']) {
      assert.equal(pairTargetFor(given, { address: 'ignored', port: 5002 }), given);
    }
  });

  it('gives a dotted LAN host name with the port that answered, so pair does not take it for a tailnet name', () => {
    for (const name of ['nas.lan', 'box.local', 'hub-b.home.arpa']) {
      assert.equal(isAddressTarget(name), false, `${name} alone reads as a tailnet name`);
      const advised = pairTargetFor(name, { address: name, port: 3000 });
      assert.equal(advised, `${name}:3000`);
      assert.equal(isAddressTarget(advised), true, `${advised} is read as an address`);
    }
  });
});
