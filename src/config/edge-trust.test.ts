import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_TRUSTED_PROXIES, parseAllowedHosts, parseAllowedOrigins, parseTrustedProxies } from './edge-trust.js';
import { loadEnv } from './env.js';

describe('HUB_TRUST_PROXY', () => {
  const read: Array<{ name: string; value: string | undefined; expected: readonly string[] }> = [
    { name: 'unset: only a proxy on this machine', value: undefined, expected: DEFAULT_TRUSTED_PROXIES },
    { name: 'false: no proxy at all', value: 'false', expected: [] },
    { name: 'off: no proxy at all', value: ' off ', expected: [] },
    { name: 'one address becomes a host range', value: '10.0.0.7', expected: ['10.0.0.7/32'] },
    { name: 'a list of ranges, both families', value: '172.16.0.0/12, fd00::/8,::1', expected: ['172.16.0.0/12', 'fd00::/8', '::1/128'] },
  ];
  for (const row of read) it(`reads ${row.name}`, () => assert.deepEqual(parseTrustedProxies(row.value), row.expected));

  const refused: Array<{ name: string; value: string; names: RegExp }> = [
    { name: 'true, which would believe every caller', value: 'true', names: /list the proxies' addresses/ },
    { name: '1, the same thing', value: '1', names: /would believe X-Forwarded-For from any caller/ },
    { name: 'a host name', value: 'traefik', names: /"traefik" is not an IP address/ },
    { name: 'a prefix too long for IPv4', value: '10.0.0.0/33', names: /"10.0.0.0\/33"/ },
    { name: 'a prefix that is not a number', value: '10.0.0.0/x', names: /"10.0.0.0\/x"/ },
    { name: 'an address out of range', value: '10.0.0.256', names: /"10.0.0.256"/ },
  ];
  for (const row of refused) it(`refuses ${row.name}, naming it`, () => assert.throws(() => parseTrustedProxies(row.value), row.names));

  it('refuses a Hub start with a nonsense value rather than trusting anyone', () => {
    assert.throws(() => loadEnv({ HUB_TRUST_PROXY: 'yes' }), /HUB_TRUST_PROXY/);
    assert.deepEqual(loadEnv({}).trustedProxies, DEFAULT_TRUSTED_PROXIES);
  });

  it('counts the proxies as named only when the operator listed some', () => {
    const named = (value: string | undefined) => loadEnv(value === undefined ? {} : { HUB_TRUST_PROXY: value }).proxiesNamed;
    assert.deepEqual([named(undefined), named(''), named('false'), named('10.0.0.5'), named('127.0.0.1,::1')], [false, false, false, true, true]);
  });
});

describe('HUB_ALLOWED_HOSTS', () => {
  it('reads names, lower-cased, with a trailing dot dropped and *. kept', () => {
    assert.deepEqual(parseAllowedHosts('Hub.Example.com., *.svc.local, cihub'), ['hub.example.com', '*.svc.local', 'cihub']);
    assert.deepEqual(parseAllowedHosts(undefined), []);
  });
  for (const bad of ['http://hub.example.com', 'hub.example.com:5002', 'hub/x', '10.0.0.1', 'a'.repeat(254), 'bad name']) {
    it(`refuses ${JSON.stringify(bad.slice(0, 30))}`, () => assert.throws(() => parseAllowedHosts(bad), /HUB_ALLOWED_HOSTS entry/));
  }
});

describe('HUB_ALLOWED_ORIGINS', () => {
  it('reads origins in their serialised form, and * for any', () => {
    assert.deepEqual(parseAllowedOrigins('https://Chat.Example.com, http://localhost:3000/, *'), ['https://chat.example.com', 'http://localhost:3000', '*']);
  });
  for (const bad of ['chat.example.com', 'https://chat.example.com/app', 'https://chat.example.com?x=1', 'https://u:p@chat.example.com', 'null']) {
    it(`refuses ${bad}`, () => assert.throws(() => parseAllowedOrigins(bad), /HUB_ALLOWED_ORIGINS entry/));
  }
});
