import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addressRefusal, checkPoolTarget, type Resolver } from './private-address.js';

const resolver =
  (answers: Record<string, string[]>): Resolver =>
  async (host) => {
    const list = answers[host];
    if (list === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('addressRefusal: which addresses a Hub may dial to find or pair with another', () => {
  const allowed = [
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.42',
    '100.64.0.1',
    '100.101.102.103',
    '100.127.255.254',
    'fd12:3456::7',
    'fd7a:115c:a1e0::1',
    'fc00::1',
    '::ffff:192.168.1.42',
  ];
  for (const ip of allowed) it(`allows ${ip}`, () => assert.equal(addressRefusal(ip), null));

  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.9.9.9', /loopback/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['169.254.169.254', /cloud metadata/],
    ['fd00:ec2::254', /cloud metadata/],
    ['100.100.100.200', /cloud metadata/],
    ['100.100.100.100', /Tailscale's own resolver/],
    ['169.254.10.1', /link-local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['224.0.0.251', /multicast/],
    ['ff02::fb', /multicast/],
    ['8.8.8.8', /public/],
    ['172.32.0.1', /public/],
    ['100.128.0.1', /public/],
    ['192.169.0.1', /public/],
    ['2001:4860:4860::8888', /public/],
    ['not-an-ip', /not an IP address/],
  ];
  for (const [ip, why] of refused) it(`refuses ${ip}`, () => assert.match(addressRefusal(ip) ?? 'allowed', why));
});

describe('checkPoolTarget', () => {
  it('passes an IP literal without resolving anything', async () => {
    const check = await checkPoolTarget('192.168.1.42', async () => assert.fail('no lookup for a literal'));
    assert.deepEqual(check, { ok: true, addresses: [{ address: '192.168.1.42', family: 4 }] });
  });

  it('passes a bracketed IPv6 ULA', async () => {
    assert.deepEqual(await checkPoolTarget('[fd12::7]', resolver({})), { ok: true, addresses: [{ address: 'fd12::7', family: 6 }] });
  });

  it('passes a name only when every address it resolves to is private, and returns them to pin', async () => {
    const check = await checkPoolTarget('nas.lan', resolver({ 'nas.lan': ['192.168.1.9', 'fd12::9'] }));
    assert.deepEqual(check, {
      ok: true,
      addresses: [
        { address: '192.168.1.9', family: 4 },
        { address: 'fd12::9', family: 6 },
      ],
    });
  });

  it('refuses a name with one public address among private ones', async () => {
    const check = await checkPoolTarget('mixed.lan', resolver({ 'mixed.lan': ['192.168.1.9', '93.184.216.34'] }));
    assert.equal(check.ok, false);
    assert.match(check.ok ? '' : check.reason, /mixed\.lan resolves to 93\.184\.216\.34, and is a public address/);
  });

  it('refuses a name that resolves to loopback, and one that resolves to the metadata endpoint', async () => {
    const r = resolver({ 'evil.tail0.ts.net': ['127.0.0.1'], 'meta.lan': ['169.254.169.254'] });
    assert.match(((await checkPoolTarget('evil.tail0.ts.net', r)) as { reason: string }).reason, /resolves to 127\.0\.0\.1, and is loopback/);
    assert.match(((await checkPoolTarget('meta.lan', r)) as { reason: string }).reason, /is a cloud metadata endpoint/);
  });

  it('says when a name does not resolve', async () => {
    assert.match(((await checkPoolTarget('gone.lan', resolver({}))) as { reason: string }).reason, /gone\.lan did not resolve \(ENOTFOUND\)/);
  });

  it('refuses "localhost" as the system resolver answers it', async () => {
    const check = await checkPoolTarget('localhost');
    assert.equal(check.ok, false);
    assert.match((check as { reason: string }).reason, /loopback/);
  });
});
