import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSince } from './since.js';

const NOON_Z = Date.UTC(2026, 10, 30, 12, 0, 0);

describe('parseSince', () => {
  const accepted: readonly { name: string; raw: string; ms: number }[] = [
    { name: 'Z with milliseconds', raw: '2026-11-30T12:00:00.000Z', ms: NOON_Z },
    { name: 'Z without a fraction', raw: '2026-11-30T12:00:00Z', ms: NOON_Z },
    { name: 'Z without seconds', raw: '2026-11-30T12:00Z', ms: NOON_Z },
    { name: 'an offset with a colon, east of UTC', raw: '2026-11-30T13:00:00.000+01:00', ms: NOON_Z },
    { name: 'an offset without a colon, west of UTC', raw: '2026-11-30T07:30:00.000-0430', ms: NOON_Z },
    { name: 'an offset that crosses midnight', raw: '2026-12-01T01:00:00+13:00', ms: NOON_Z },
    { name: 'a fraction finer than a millisecond, truncated', raw: '2026-11-30T12:00:00.0079Z', ms: NOON_Z + 7 },
    { name: 'a one-digit fraction', raw: '2026-11-30T12:00:00.5Z', ms: NOON_Z + 500 },
    { name: 'a leap day', raw: '2028-02-29T00:00:00Z', ms: Date.UTC(2028, 1, 29) },
  ];
  for (const c of accepted) {
    it(`accepts ${c.name}`, () => {
      const parsed = parseSince(c.raw);
      assert.deepEqual(parsed, { ok: true, ms: c.ms, iso: new Date(c.ms).toISOString() });
    });
  }

  it('reads an offset as the instant it names, so it orders against Z times by time and not by text', () => {
    const offset = parseSince('2026-11-30T12:30:00.000+01:00'); // 11:30Z: earlier, though it sorts later as text
    const z = parseSince('2026-11-30T12:00:00.000Z');
    assert.ok(offset.ok && z.ok);
    assert.ok(offset.ms < z.ms);
    assert.equal(offset.iso, '2026-11-30T11:30:00.000Z');
  });

  const refused: readonly { name: string; raw: string; says: readonly RegExp[] }[] = [
    { name: 'a time with no zone', raw: '2026-11-30T12:00:00.000', says: [/zone/, /%2B/, /has no zone/] },
    { name: 'a date alone', raw: '2026-11-30', says: [/zone/, /%2B/] },
    {
      name: 'an offset whose + a query string turned into a space',
      raw: '2026-11-30T12:00:00.000 01:00',
      says: [/zone/, /arrived as a space/, /2026-11-30T12:00:00\.000%2B01:00/],
    },
    { name: 'an epoch number', raw: '1796040000000', says: [/ISO 8601/, /%2B/] },
    { name: 'an RFC 2822 date', raw: 'Mon, 30 Nov 2026 12:00:00 GMT', says: [/ISO 8601/] },
    { name: 'an empty value', raw: '', says: [/ISO 8601/] },
    { name: 'month 13', raw: '2026-13-01T00:00:00Z', says: [/not a real time/] },
    { name: '31 April', raw: '2026-04-31T00:00:00Z', says: [/not a real time/] },
    { name: 'hour 24', raw: '2026-11-30T24:00:00Z', says: [/not a real time/] },
    { name: 'an offset of 25 hours', raw: '2026-11-30T12:00:00+25:00', says: [/not a real time/] },
  ];
  for (const c of refused) {
    it(`refuses ${c.name}, saying why`, () => {
      const parsed = parseSince(c.raw);
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      for (const pattern of c.says) assert.match(parsed.message, pattern);
    });
  }

  it('echoes only the start of a long refused value', () => {
    const parsed = parseSince('x'.repeat(5_000));
    assert.ok(!parsed.ok && parsed.message.length < 300);
  });
});
