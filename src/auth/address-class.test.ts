import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, type AddressClass } from './address-class.js';

interface Row {
  readonly name: string;
  readonly address: string;
  readonly expected: AddressClass;
}

function table(title: string, rows: readonly Row[]): void {
  describe(title, () => {
    for (const row of rows) {
      it(`${row.name}: ${row.address} is ${row.expected}`, () => assert.equal(classifyAddress(row.address), row.expected));
    }
  });
}

table('classifyAddress, IPv4', [
  { name: 'loopback', address: '127.0.0.1', expected: 'loopback' },
  { name: 'anywhere in 127/8', address: '127.255.3.4', expected: 'loopback' },
  { name: '10/8', address: '10.1.2.3', expected: 'private' },
  { name: 'bottom of 172.16/12', address: '172.16.0.1', expected: 'private' },
  { name: 'top of 172.16/12', address: '172.31.255.255', expected: 'private' },
  { name: 'just below 172.16/12', address: '172.15.255.255', expected: 'public' },
  { name: 'just above 172.16/12', address: '172.32.0.1', expected: 'public' },
  { name: '192.168/16', address: '192.168.1.20', expected: 'private' },
  { name: 'link-local', address: '169.254.10.1', expected: 'private' },
  { name: 'bottom of the tailnet 100.64/10', address: '100.64.0.1', expected: 'tailnet' },
  { name: 'top of the tailnet 100.64/10', address: '100.127.255.254', expected: 'tailnet' },
  { name: 'just below 100.64/10', address: '100.63.255.255', expected: 'public' },
  { name: 'just above 100.64/10', address: '100.128.0.1', expected: 'public' },
  { name: 'a public resolver', address: '8.8.8.8', expected: 'public' },
  { name: 'a documentation address', address: '203.0.113.9', expected: 'public' },
  { name: 'surrounding whitespace (from a header list)', address: ' 10.0.0.7 ', expected: 'private' },
]);

table('classifyAddress, IPv6', [
  { name: 'loopback', address: '::1', expected: 'loopback' },
  { name: 'bracketed loopback', address: '[::1]', expected: 'loopback' },
  { name: 'the Tailscale ULA /48', address: 'fd7a:115c:a1e0::1', expected: 'tailnet' },
  { name: 'deeper inside the Tailscale /48', address: 'fd7a:115c:a1e0:ab12:4843:cd96:6258:b240', expected: 'tailnet' },
  { name: 'the Tailscale /48 in upper case', address: 'FD7A:115C:A1E0::2', expected: 'tailnet' },
  { name: 'next to the Tailscale /48: a plain ULA', address: 'fd7a:115c:a1e1::1', expected: 'private' },
  { name: 'unique-local fc00::/7 (fc half)', address: 'fc00::1', expected: 'private' },
  { name: 'unique-local fc00::/7 (fd half)', address: 'fd12:3456::1', expected: 'private' },
  { name: 'link-local', address: 'fe80::1', expected: 'private' },
  { name: 'link-local with a zone id', address: 'fe80::1%eth0', expected: 'private' },
  { name: 'global unicast', address: '2001:db8::1', expected: 'public' },
  { name: 'another global address', address: '2606:4700::6810:84e5', expected: 'public' },
]);

table('classifyAddress, IPv4-mapped IPv6 (how Node reports v4 peers on a dual-stack socket)', [
  { name: 'mapped loopback', address: '::ffff:127.0.0.1', expected: 'loopback' },
  { name: 'mapped private', address: '::ffff:172.17.0.2', expected: 'private' },
  { name: 'mapped tailnet', address: '::ffff:100.101.102.103', expected: 'tailnet' },
  { name: 'mapped public', address: '::FFFF:8.8.4.4', expected: 'public' },
]);

table('classifyAddress, not an address', [
  { name: 'empty', address: '', expected: 'invalid' },
  { name: 'a host name', address: 'hub-a.tail0.ts.net', expected: 'invalid' },
  { name: 'an octet over 255', address: '10.0.0.256', expected: 'invalid' },
  { name: 'RFC 7239 unknown', address: 'unknown', expected: 'invalid' },
]);
