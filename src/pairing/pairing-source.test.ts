import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_TRUSTED_PROXIES, parseTrustedProxies } from '../config/edge-trust.js';
import { limiterSourceIp, proxiesNamed } from './pairing-source.js';

const IP = '127.0.0.1';

describe('limiterSourceIp', () => {
  const rows: readonly { name: string; headers: IncomingHttpHeaders; named: boolean; keyed: boolean }[] = [
    { name: 'a direct caller (no proxy headers), proxies not named', headers: {}, named: false, keyed: true },
    { name: 'through a tunnel (cf-ray), proxies not named', headers: { 'cf-ray': '8a1b2c3d4e5f-AMS' }, named: false, keyed: false },
    { name: 'with cf-connecting-ip only, proxies not named', headers: { 'cf-connecting-ip': '203.0.113.9' }, named: false, keyed: false },
    { name: 'with X-Forwarded-For, proxies not named', headers: { 'x-forwarded-for': '203.0.113.9' }, named: false, keyed: false },
    { name: 'with Forwarded, proxies not named', headers: { forwarded: 'for=203.0.113.9' }, named: false, keyed: false },
    { name: 'through a tunnel, proxies named in HUB_TRUST_PROXY', headers: { 'cf-ray': '8a1b2c3d4e5f-AMS' }, named: true, keyed: true },
    { name: 'with X-Forwarded-For, proxies named in HUB_TRUST_PROXY', headers: { 'x-forwarded-for': '203.0.113.9' }, named: true, keyed: true },
  ];
  for (const r of rows) {
    it(`${r.keyed ? 'keys on the address' : 'keys on no address'}: ${r.name}`, () => {
      assert.equal(limiterSourceIp(IP, r.headers, r.named), r.keyed ? IP : null);
    });
  }
});

describe('proxiesNamed', () => {
  it('is false with HUB_TRUST_PROXY unset (the loopback default is the Hub guessing) or false (none named)', () => {
    assert.equal(proxiesNamed(parseTrustedProxies(undefined)), false);
    assert.equal(proxiesNamed(DEFAULT_TRUSTED_PROXIES), false);
    assert.equal(proxiesNamed(parseTrustedProxies('false')), false);
  });

  it('is true when HUB_TRUST_PROXY lists proxies', () => {
    assert.equal(proxiesNamed(parseTrustedProxies('10.0.0.0/8')), true);
    assert.equal(proxiesNamed(parseTrustedProxies('127.0.0.1')), true);
  });
});
