import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_FILE, logDir, RotatingLogFile } from './log-file.js';
import { LOG_LEVELS } from './log-record.js';
import { formatCursor, LOG_ENTRY_MAX_CHARS, parseCursor, readLogWindow, type LogWindow, type LogWindowQuery } from './log-window.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-logwindow-'));
});
after(() => rmSync(root, { recursive: true, force: true }));
const freshDir = () => mkdtempSync(join(root, 'd-'));

const T0 = Date.UTC(2026, 11, 1, 18, 0, 0);
/** A pino-shaped line; n is also its second, so times rise with n. Every line the same length. */
const line = (n: number, level = 30) =>
  `${JSON.stringify({ level, time: new Date(T0 + n * 1000).toISOString(), service: 'cihub', pid: 7, msg: `line ${String(n).padStart(4, '0')}` })}\n`;
const LINE_BYTES = Buffer.byteLength(line(0));
const ALL = { sinceMs: null, minLevel: null };
const numbers = (w: LogWindow) => w.entries.map((e) => Number(e.msg.slice(5)));
const query = (q: Partial<LogWindowQuery>): LogWindowQuery => ({ filter: ALL, limit: 1000, after: null, ...q });

describe('the log window the dashboard reads', () => {
  it('gives the newest lines that pass the filter, oldest first, across rotated files, with time, level, message and fields', () => {
    const dir = freshDir();
    const file = new RotatingLogFile(dir, { maxBytes: LINE_BYTES * 10, kept: 5 });
    for (let n = 0; n < 35; n += 1) file.write(line(n, n % 5 === 0 ? 40 : 30));
    file.close();
    const last = readLogWindow(dir, query({ limit: 12 }));
    assert.deepEqual(numbers(last), [23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34]);
    assert.deepEqual(last.entries[0], { time: new Date(T0 + 23_000).toISOString(), level: 30, msg: 'line 0023', fields: {}, cut: false });
    assert.equal(last.olderNotScanned, false);
    assert.equal(last.gap, false);

    const warnings = readLogWindow(dir, query({ filter: { sinceMs: null, minLevel: LOG_LEVELS.warn! }, limit: 4 }));
    assert.deepEqual(numbers(warnings), [15, 20, 25, 30], 'level at or above warn; rotated files read back');
    const recent = readLogWindow(dir, query({ filter: { sinceMs: T0 + 31_000, minLevel: null } }));
    assert.deepEqual(numbers(recent), [31, 32, 33, 34]);
  });

  it('follows from its cursor: the lines written next, through a rotation, none lost or repeated', () => {
    const dir = freshDir();
    const file = new RotatingLogFile(dir, { maxBytes: LINE_BYTES * 4, kept: 5 });
    for (let n = 0; n < 3; n += 1) file.write(line(n));
    const first = readLogWindow(dir, query({}));
    assert.deepEqual(numbers(first), [0, 1, 2]);
    assert.ok(first.cursor !== null);
    for (let n = 3; n < 9; n += 1) file.write(line(n)); // hub.log rotates after line 3, and again after 7
    const next = readLogWindow(dir, query({ after: first.cursor }));
    assert.deepEqual(numbers(next), [3, 4, 5, 6, 7, 8]);
    assert.equal(next.gap, false);
    assert.equal(next.more, false);
    assert.deepEqual(numbers(readLogWindow(dir, query({ after: next.cursor }))), [], 'nothing new, nothing repeated');
    file.close();
  });

  it('holds back a line still being written until its newline arrives', () => {
    const dir = freshDir();
    mkdirSync(logDir(dir), { recursive: true });
    const path = join(logDir(dir), LOG_FILE);
    const whole = line(1);
    writeFileSync(path, line(0) + whole.slice(0, 20));
    const first = readLogWindow(dir, query({}));
    assert.deepEqual(numbers(first), [0]);
    writeFileSync(path, whole.slice(20), { flag: 'a' });
    assert.deepEqual(numbers(readLogWindow(dir, query({ after: first.cursor }))), [1]);
  });

  it('a cursor whose file is gone says so (gap) and starts from the newest lines again', () => {
    const dir = freshDir();
    const file = new RotatingLogFile(dir, { maxBytes: LINE_BYTES * 2, kept: 2 });
    file.write(line(0));
    const first = readLogWindow(dir, query({}));
    for (let n = 1; n < 9; n += 1) file.write(line(n)); // the file the cursor named is deleted
    file.close();
    const next = readLogWindow(dir, query({ after: first.cursor, limit: 3 }));
    assert.equal(next.gap, true);
    assert.deepEqual(numbers(next), [6, 7, 8]);
    // A new file may be given the deleted one's inode: its first line tells them apart.
    const reused = readLogWindow(dir, query({ after: { ...next.cursor!, head: 'ffffffffffff' }, limit: 1 }));
    assert.deepEqual([reused.gap, numbers(reused)], [true, [8]]);
  });

  it('reads no more than its byte budget: looking back it says older lines were not scanned; following it says there is more, and the next reads bring the rest', () => {
    const dir = freshDir();
    const file = new RotatingLogFile(dir, { maxBytes: LINE_BYTES * 1000, kept: 5 });
    file.write(line(0, 50));
    for (let n = 1; n < 40; n += 1) file.write(line(n));
    const errors = readLogWindow(dir, query({ filter: { sinceMs: null, minLevel: LOG_LEVELS.error! }, scanBytes: LINE_BYTES * 10 }));
    assert.deepEqual(numbers(errors), []);
    assert.equal(errors.olderNotScanned, true);
    assert.deepEqual(numbers(readLogWindow(dir, query({ filter: { sinceMs: null, minLevel: LOG_LEVELS.error! } }))), [0], 'with the whole budget it is found');

    const start = readLogWindow(dir, query({ limit: 1 }));
    for (let n = 40; n < 65; n += 1) file.write(line(n));
    file.close();
    const seen: number[] = [];
    let cursor = start.cursor;
    for (let round = 0; round < 10; round += 1) {
      const w = readLogWindow(dir, query({ after: cursor, scanBytes: LINE_BYTES * 10 }));
      seen.push(...numbers(w));
      cursor = w.cursor;
      if (!w.more) break;
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 25 }, (_, i) => 40 + i),
    );
  });

  it('a follow read stops at limit and carries on from there', () => {
    const dir = freshDir();
    const file = new RotatingLogFile(dir);
    file.write(line(0));
    const start = readLogWindow(dir, query({}));
    for (let n = 1; n < 6; n += 1) file.write(line(n));
    file.close();
    const a = readLogWindow(dir, query({ after: start.cursor, limit: 3 }));
    assert.deepEqual([numbers(a), a.more], [[1, 2, 3], true]);
    const b = readLogWindow(dir, query({ after: a.cursor, limit: 3 }));
    assert.deepEqual([numbers(b), b.more], [[4, 5], false]);
  });

  it('a line longer than the entry limit comes back cut, without its fields; a line that is not JSON comes back as text', () => {
    const dir = freshDir();
    mkdirSync(logDir(dir), { recursive: true });
    const long = JSON.stringify({ level: 50, time: new Date(T0).toISOString(), msg: 'x'.repeat(LOG_ENTRY_MAX_CHARS + 10), peer: 'hub-b' });
    writeFileSync(join(logDir(dir), LOG_FILE), `${long}\nnot json at all\n`);
    const w = readLogWindow(dir, query({}));
    assert.equal(w.entries.length, 2);
    assert.equal(w.entries[0]!.cut, true);
    assert.deepEqual(w.entries[0]!.fields, {});
    assert.ok(w.entries[0]!.msg.length <= LOG_ENTRY_MAX_CHARS + 1);
    assert.deepEqual(w.entries[1], { time: null, level: null, msg: 'not json at all', fields: {}, cut: false });
  });

  it('no log file yet: no lines and no cursor', () => {
    const w = readLogWindow(freshDir(), query({}));
    assert.deepEqual(w, { entries: [], cursor: null, more: false, olderNotScanned: false, gap: false });
  });

  it('a cursor survives its text form, and anything else is refused', () => {
    const c = { ino: '18446744073709551615', head: '0123456789ab', offset: 1234 };
    assert.deepEqual(parseCursor(formatCursor(c)), c);
    for (const bad of ['', '12', '12-0', '-0-5', 'a-0-1', '1-2-3', '1-0123456789AB-1', '1-0-99999999999999999']) assert.equal(parseCursor(bad), null, bad);
  });
});
