import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { belongsToTailnet, MAX_NAME_LENGTH, normalizePeerName, normalizeTailnetSuffix, otherTailnetProblem, tailnetOf } from './peer-name.js';

describe('normalizePeerName accepts MagicDNS names in canonical form', () => {
  const cases: { name: string; raw: string; expected: string }[] = [
    { name: 'an ordinary MagicDNS name', raw: 'hub-b.tail1234.ts.net', expected: 'hub-b.tail1234.ts.net' },
    { name: 'upper case is folded', raw: 'Hub-B.Tail1234.TS.NET', expected: 'hub-b.tail1234.ts.net' },
    { name: 'surrounding whitespace is trimmed', raw: '  hub-b.tail1234.ts.net \n', expected: 'hub-b.tail1234.ts.net' },
    { name: 'one trailing dot (as Self.DNSName has it) is dropped', raw: 'hub-b.tail1234.ts.net.', expected: 'hub-b.tail1234.ts.net' },
    { name: 'two labels is enough', raw: 'hub.lan', expected: 'hub.lan' },
    { name: 'digits and inner hyphens', raw: 'gpu-01.x-y.ts.net', expected: 'gpu-01.x-y.ts.net' },
    { name: 'a label of exactly 63 characters', raw: `${'a'.repeat(63)}.ts.net`, expected: `${'a'.repeat(63)}.ts.net` },
    {
      name: 'a name of exactly 253 characters',
      raw: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
      expected: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${JSON.stringify(c.raw.slice(0, 40))}`, () => assert.deepEqual(normalizePeerName(c.raw), { ok: true, name: c.expected }));
  }
});

describe('normalizePeerName refuses anything but a bare multi-label host name, saying why', () => {
  const cases: { name: string; raw: string; reason: RegExp }[] = [
    { name: 'empty', raw: '', reason: /empty/ },
    { name: 'only whitespace', raw: '   ', reason: /empty/ },
    { name: 'only a dot', raw: '.', reason: /empty/ },
    { name: 'an https scheme', raw: 'https://hub-b.tail1234.ts.net', reason: /scheme/ },
    { name: 'an http scheme', raw: 'http://hub-b.tail1234.ts.net', reason: /scheme/ },
    { name: 'credentials', raw: 'user@hub-b.tail1234.ts.net', reason: /credentials/ },
    { name: 'user and password', raw: 'user:pw@hub-b.tail1234.ts.net', reason: /credentials/ },
    { name: 'a port', raw: 'hub-b.tail1234.ts.net:443', reason: /port/ },
    { name: 'a path', raw: 'hub-b.tail1234.ts.net/api', reason: /path/ },
    { name: 'a query', raw: 'hub-b.tail1234.ts.net?x=1', reason: /query/ },
    { name: 'a fragment', raw: 'hub-b.tail1234.ts.net#frag', reason: /fragment/ },
    { name: 'an IPv4 literal', raw: '100.101.1.2', reason: /IP literal/ },
    { name: 'an IPv4 literal with a trailing dot', raw: '192.168.1.42.', reason: /IP literal/ },
    { name: 'an IPv6 literal', raw: 'fd7a:115c:a1e0::1', reason: /IP literal/ },
    { name: 'IPv6 loopback', raw: '::1', reason: /IP literal/ },
    { name: 'an IPv6 literal with a zone', raw: 'fe80::1%eth0', reason: /IP literal/ },
    { name: 'a bracketed IPv6 literal', raw: '[fd7a:115c:a1e0::1]', reason: /bracketed IPv6/ },
    { name: 'a bracketed IPv6 literal with a port', raw: '[::1]:443', reason: /bracketed IPv6/ },
    { name: 'a dotted name URL parsers read as IPv4', raw: '1.2.3', reason: /numeric label/ },
    { name: 'a hex last label', raw: 'hub.0x7f', reason: /numeric label/ },
    { name: 'a single label', raw: 'hub-b', reason: /single label/ },
    { name: 'a single label with a trailing dot', raw: 'hub-b.', reason: /single label/ },
    { name: 'an empty label in the middle', raw: 'hub-b..ts.net', reason: /empty label/ },
    { name: 'a leading dot', raw: '.hub-b.ts.net', reason: /empty label/ },
    { name: 'two trailing dots (only one is stripped)', raw: 'hub-b.ts.net..', reason: /empty label/ },
    { name: 'a label over 63 characters', raw: `${'a'.repeat(64)}.ts.net`, reason: /label longer than 63/ },
    { name: 'a name over 253 characters', raw: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, reason: /longer than 253/ },
    { name: 'an underscore', raw: 'hub_b.ts.net', reason: /characters outside/ },
    { name: 'inner whitespace', raw: 'hub b.ts.net', reason: /characters outside/ },
    { name: 'a non-ASCII letter', raw: 'hüb.ts.net', reason: /characters outside/ },
    { name: 'the Kelvin sign, which lower-cases to an ASCII k', raw: '\u212Aub-b.tail1234.ts.net', reason: /characters outside/ },
    { name: 'Cyrillic look-alikes of Latin letters', raw: 'hub-\u0432.t\u0430il1234.ts.net', reason: /characters outside/ },
    { name: 'a fullwidth full stop', raw: 'hub-b\uFF0Etail1234.ts.net', reason: /characters outside/ },
    { name: 'an ideographic full stop', raw: 'hub-b\u3002tail1234.ts.net', reason: /characters outside/ },
    { name: 'fullwidth letters', raw: '\uFF48\uFF55\uFF42.tail1234.ts.net', reason: /characters outside/ },
    { name: 'a leading byte-order mark', raw: '\uFEFFhub-b.tail1234.ts.net', reason: /characters outside/ },
    { name: 'a trailing no-break space', raw: 'hub-b.tail1234.ts.net\u00A0', reason: /characters outside/ },
    { name: 'a zero-width space inside a label', raw: 'hub\u200B-b.tail1234.ts.net', reason: /characters outside/ },
    { name: 'a punycode label that is not one (Unicode in its place)', raw: 'xn--hb-b.tail1234.ts.net\u0301', reason: /characters outside/ },
    { name: 'a label starting with a hyphen', raw: '-hub.ts.net', reason: /starts or ends with '-'/ },
    { name: 'a label ending with a hyphen', raw: 'hub-.ts.net', reason: /starts or ends with '-'/ },
  ];
  for (const c of cases) {
    it(`${c.name}: ${JSON.stringify(c.raw.slice(0, 40))}`, () => {
      const result = normalizePeerName(c.raw);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.reason, c.reason);
    });
  }

  it('a reason quotes the input without control characters and shortened', () => {
    for (const raw of [`evil\nline.${'x'.repeat(300)}`, 'bad\u0007label.ts.net']) {
      const result = normalizePeerName(raw);
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.doesNotMatch(result.reason, /[\u0000-\u001f]/);
        assert.ok(result.reason.length < 300);
      }
    }
  });
});

describe('belongsToTailnet', () => {
  const cases: { name: string; peer: string; suffix: string | null; expected: boolean }[] = [
    { name: 'a Hub on no tailnet accepts any name', peer: 'hub-b.elsewhere.ts.net', suffix: null, expected: true },
    { name: 'a name under the suffix', peer: 'hub-b.tail1234.ts.net', suffix: 'tail1234.ts.net', expected: true },
    { name: 'case differs on both sides', peer: 'HUB-B.tail1234.ts.net', suffix: 'TAIL1234.TS.NET', expected: true },
    { name: 'the suffix with a trailing dot', peer: 'hub-b.tail1234.ts.net', suffix: 'tail1234.ts.net.', expected: true },
    { name: 'the name with a trailing dot', peer: 'hub-b.tail1234.ts.net.', suffix: 'tail1234.ts.net', expected: true },
    { name: 'a deeper name under the suffix', peer: 'a.b.tail1234.ts.net', suffix: 'tail1234.ts.net', expected: true },
    { name: 'another tailnet', peer: 'hub-b.tail9999.ts.net', suffix: 'tail1234.ts.net', expected: false },
    { name: 'the suffix itself is not a device', peer: 'tail1234.ts.net', suffix: 'tail1234.ts.net', expected: false },
    { name: 'a lookalike that only ends in the same text', peer: 'hub-b.eviltail1234.ts.net', suffix: 'tail1234.ts.net', expected: false },
    { name: 'the suffix as a prefix', peer: 'tail1234.ts.net.evil.com', suffix: 'tail1234.ts.net', expected: false },
    { name: 'an empty suffix is a misconfiguration, not "no tailnet"', peer: 'hub-b.tail1234.ts.net', suffix: '', expected: false },
    { name: 'a malformed suffix fails closed', peer: 'hub-b.tail1234.ts.net', suffix: 'tail 1234', expected: false },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.peer} under ${String(c.suffix)} is ${c.expected}`, () => assert.equal(belongsToTailnet(c.peer, c.suffix), c.expected));
  }
});

describe('normalizeTailnetSuffix', () => {
  it('canonicalises case and dots on either end', () => assert.equal(normalizeTailnetSuffix(' .Tail1234.TS.net. '), 'tail1234.ts.net'));
  it('refuses an empty or malformed suffix', () => {
    assert.equal(normalizeTailnetSuffix(''), null);
    assert.equal(normalizeTailnetSuffix('a..b'), null);
    assert.equal(normalizeTailnetSuffix('https://x.ts.net'), null);
  });
});

// Names reach this before any credential is checked (X-Hub-Pool-Peer, a pairing request). A trim
// by regex rescanned a long run of inner spaces from each of its characters: 16 KB took 0.6 s,
// and with it the 1 MiB here does not return for most of an hour.
describe('normalizePeerName on a name padded with a long run of spaces', () => {
  it('refuses it as too long', () => {
    const padded = normalizePeerName(`a${' '.repeat(1 << 20)}a`);
    assert.equal(padded.ok, false);
    assert.match(padded.ok ? '' : padded.problem, new RegExp(`longer than ${MAX_NAME_LENGTH}`));
  });
  it('still trims the spaces around a good name', () => {
    assert.deepEqual(normalizePeerName(`${' '.repeat(1 << 20)}hub-a.tail0.ts.net\t`), { ok: true, name: 'hub-a.tail0.ts.net' });
  });
});

describe('tailnetOf: the tailnet a MagicDNS name is on', () => {
  it('is the label under ts.net, whatever the case, depth or trailing dot', () => {
    assert.equal(tailnetOf('hub-z.tail9.ts.net'), 'tail9.ts.net');
    assert.equal(tailnetOf('GPU.Lab.Other.TS.net.'), 'other.ts.net');
  });
  it('is null for a LAN name or a tailnet suffix with no device under it', () => {
    for (const name of ['nas.lan', 'hub.ts.net.example', 'tail9.ts.net', 'ts.net']) assert.equal(tailnetOf(name), null, name);
  });
});

describe('otherTailnetProblem', () => {
  it('names both tailnets for a MagicDNS name under another', () => {
    assert.match(
      otherTailnetProblem('hub-z.other.ts.net', 'tail0.ts.net') ?? '',
      /^hub-z\.other\.ts\.net is on another tailnet \(other\.ts\.net\) than this Hub \(tail0\.ts\.net\); .*same tailnet/,
    );
  });
  it('has nothing to say about a name on this tailnet, a LAN name, or on a Hub with no tailnet', () => {
    assert.equal(otherTailnetProblem('hub-b.tail0.ts.net', 'tail0.ts.net'), null);
    assert.equal(otherTailnetProblem('nas.lan', 'tail0.ts.net'), null);
    assert.equal(otherTailnetProblem('hub-z.other.ts.net', null), null);
  });
});
