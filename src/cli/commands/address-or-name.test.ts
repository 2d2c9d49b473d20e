/**
 * Which way `cihub pool pair TARGET` pairs: by tailnet name (the request goes to https://TARGET)
 * or by address (the Hub tries TARGET on port 5002, then 3000, and learns the name from the answer
 * to the PIN). A dotted name is a tailnet name under this Hub's tailnet suffix, the one
 * `cihub pool status` reports, or under any other tailnet's (`*.ts.net`); any other can never be a
 * peer's, so it is a LAN host name.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isAddressTarget } from './address.js';

const SUFFIX = 'tail0.ts.net';

describe('a pair target read against the tailnet suffix', () => {
  it('pairs by name with a name under the suffix, whatever its case or trailing dot', () => {
    for (const name of ['hub-b.tail0.ts.net', 'HUB-B.Tail0.ts.net', 'hub-b.tail0.ts.net.', 'gpu.lab.tail0.ts.net']) {
      assert.equal(isAddressTarget(name, SUFFIX), false, name);
    }
  });

  it('pairs by address with a dotted LAN name outside the suffix, with no port needed', () => {
    for (const name of ['nas.lan', 'box.local', 'hub-b.home.arpa', 'tail0.ts.net']) {
      assert.equal(isAddressTarget(name, SUFFIX), true, name);
    }
  });

  it('keeps a MagicDNS name on another tailnet a name: it is no LAN host, and pair refuses it as on another tailnet', () => {
    for (const name of ['hub-b.tail9.ts.net', 'gpu.lab.tail9.ts.net', 'HUB-Z.Other.TS.NET.']) {
      assert.equal(isAddressTarget(name, SUFFIX), false, name);
    }
  });

  it('pairs by address with an IP, a port or a single label, whether or not a suffix is known', () => {
    for (const suffix of [SUFFIX, null]) {
      for (const target of ['192.168.1.42', 'fd12::7', '[fd12::7]:3000', 'nas.lan:5002', 'hub-b.tail0.ts.net:5002', 'nas']) {
        assert.equal(isAddressTarget(target, suffix), true, `${target} with suffix ${suffix}`);
      }
    }
  });

  it('keeps a dotted name a tailnet name on a Hub with no suffix, as the Hub itself checks no name there', () => {
    for (const name of ['nas.lan', 'hub-b.tail0.ts.net']) assert.equal(isAddressTarget(name, null), false, name);
  });
});
