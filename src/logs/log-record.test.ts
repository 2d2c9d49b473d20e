import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { keepRecord, levelNamed, parseLogLine, parseSince } from './log-record.js';
import { renderLogLine } from '../cli/render/log-line.js';

const NOW = Date.UTC(2026, 11, 1, 18, 0, 0);

describe('--since', () => {
  const cases: [string, number | null][] = [
    ['30s', NOW - 30_000],
    ['10m', NOW - 600_000],
    ['2h', NOW - 7_200_000],
    ['1d', NOW - 86_400_000],
    ['2026-12-01T17:00:00Z', Date.UTC(2026, 11, 1, 17)],
    ['2026-12-01T17:00:00+01:00', Date.UTC(2026, 11, 1, 16)],
    ['2026-12-01T17:00:00', null], // no zone: ambiguous, refused
    ['2026-02-30T17:00:00Z', null], // no such day: Date.parse read it as 2 March
    ['2026-12-01 17:00:00Z', null], // a space for the T, as the routing log's since refuses it
    ['10 minutes', null],
    ['yesterday', null],
    ['-5m', null],
  ];
  for (const [text, expected] of cases)
    it(`${JSON.stringify(text)} → ${expected === null ? 'refused' : new Date(expected).toISOString()}`, () => assert.equal(parseSince(text, NOW), expected));
});

describe('--level', () => {
  const cases: [string, number | null][] = [
    ['warn', 40],
    ['ERROR', 50],
    ['trace', 10],
    ['loud', null],
    ['silent', null],
    // Names every plain object has (lower case, as a name is looked up): once taken for levels.
    ['constructor', null],
    ['__proto__', null],
  ];
  for (const [name, expected] of cases)
    it(`${JSON.stringify(name)} → ${expected === null ? 'refused' : expected}`, () => assert.equal(levelNamed(name), expected));
});

describe('a log line read back', () => {
  const line = JSON.stringify({
    level: 40,
    time: '2026-12-01T17:59:00.000Z',
    service: 'cihub',
    pid: 1,
    msg: 'Peer refused the pairing PIN',
    peer: 'hub-b.tail0.ts.net',
    count: 2,
  });

  it('keeps time, level, message and the other fields, dropping service and pid', () => {
    const r = parseLogLine(line);
    assert.equal(r.timeMs, Date.UTC(2026, 11, 1, 17, 59));
    assert.equal(r.level, 40);
    assert.equal(r.msg, 'Peer refused the pairing PIN');
    assert.deepEqual(r.fields, { peer: 'hub-b.tail0.ts.net', count: 2 });
    assert.equal(r.line, line);
  });

  it('is filtered by time and level; a line that is not JSON passes only when nothing filters', () => {
    const r = parseLogLine(line);
    const table: [number | null, number | null, boolean][] = [
      [null, null, true],
      [NOW - 120_000, null, true],
      [NOW - 30_000, null, false],
      [null, 40, true],
      [null, 50, false],
    ];
    for (const [sinceMs, minLevel, kept] of table) assert.equal(keepRecord(r, { sinceMs, minLevel }), kept, JSON.stringify({ sinceMs, minLevel }));
    const raw = parseLogLine('half a line {"lev');
    assert.equal(keepRecord(raw, { sinceMs: null, minLevel: null }), true);
    assert.equal(keepRecord(raw, { sinceMs: null, minLevel: 10 }), false);
  });

  it('reads on a terminal as time, level, message and key=value fields', () => {
    assert.equal(renderLogLine(parseLogLine(line)), '2026-12-01 17:59:00Z  WARN   Peer refused the pairing PIN  peer=hub-b.tail0.ts.net  count=2');
    assert.equal(renderLogLine(parseLogLine('not json')), 'not json');
  });
});
