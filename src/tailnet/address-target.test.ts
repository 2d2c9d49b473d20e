import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authority, parseAddressTarget } from './address-target.js';

describe('parseAddressTarget', () => {
  const good: [string, string, number | null][] = [
    ['192.168.1.42', '192.168.1.42', null],
    ['192.168.1.42:5002', '192.168.1.42', 5002],
    ['fd12::7', 'fd12::7', null],
    ['[fd12::7]:3000', 'fd12::7', 3000],
    ['[fd12::7]', 'fd12::7', null],
    ['NAS.lan:5002', 'nas.lan', 5002],
    ['nas', 'nas', null],
  ];
  for (const [raw, host, port] of good) it(`reads ${raw}`, () => assert.deepEqual(parseAddressTarget(raw), { ok: true, target: { host, port } }));

  const bad: [string, RegExp][] = [
    ['', /empty/],
    ['http://192.168.1.42', /without a scheme or path/],
    ['192.168.1.42/x', /without a scheme or path/],
    ['user@192.168.1.42', /without a scheme or path/],
    ['192.168.1.42:0', /from 1 to 65535/],
    ['192.168.1.42:70000', /from 1 to 65535/],
    ['192.168.1.42:abc', /from 1 to 65535/],
    ['[not-v6]:80', /not an IPv6 address/],
    ['bad_name.lan', /^"bad_name\.lan" is neither an IP address nor a host name$/],
    ['10.0.0.1:5002:1', /^"10\.0\.0\.1:5002:1" is not ADDRESS:PORT: "10\.0\.0\.1:5002" before the port is neither/],
  ];
  for (const [raw, why] of bad) it(`refuses ${JSON.stringify(raw)}`, () => assert.match((parseAddressTarget(raw) as { reason: string }).reason ?? '', why));

  it('writes IPv6 authorities in brackets', () => {
    assert.equal(authority('fd12::7', 5002), '[fd12::7]:5002');
    assert.equal(authority('10.0.0.1', 5002), '10.0.0.1:5002');
  });
});
