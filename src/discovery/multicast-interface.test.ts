import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { multicastInterface } from './multicast-interface.js';

describe('the interface the LAN announcement goes out on, by the address the Hub listens on', () => {
  const rows: readonly { readonly host: string; readonly expected: string | null; readonly why: string }[] = [
    { host: '127.0.0.1', expected: '127.0.0.1', why: 'IPv4 loopback: this machine only' },
    { host: '::1', expected: '127.0.0.1', why: 'IPv6 loopback: this machine only, like 127.0.0.1' },
    { host: 'localhost', expected: '127.0.0.1', why: 'the loopback name' },
    { host: 'hub.localhost', expected: '127.0.0.1', why: 'a name under .localhost' },
    { host: '::ffff:127.0.0.1', expected: '127.0.0.1', why: 'IPv4-mapped loopback' },
    { host: '127.0.0.2', expected: '127.0.0.2', why: 'another loopback address, as given' },
    { host: '192.168.1.5', expected: '192.168.1.5', why: "one LAN address: that address's interface" },
    { host: '::ffff:192.168.1.5', expected: '192.168.1.5', why: 'the same, IPv4-mapped' },
    { host: '0.0.0.0', expected: null, why: 'every IPv4 address: the default interface' },
    { host: '::', expected: null, why: 'every address: the default interface' },
    { host: 'fd7a:115c:a1e0::1', expected: null, why: 'an IPv6 address other than loopback: the default interface' },
    { host: 'hub-a.lan', expected: null, why: 'a host name: the default interface' },
  ];
  for (const row of rows) {
    it(`${row.host} → ${row.expected ?? 'the default'} (${row.why})`, () => assert.equal(multicastInterface(row.host), row.expected));
  }
});
