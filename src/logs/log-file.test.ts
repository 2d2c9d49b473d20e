import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync, mkdirSync, chmodSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_FILE, logDir, logFilesOldestFirst, RotatingLogFile } from './log-file.js';
import { LogTail } from './log-tail.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-logfile-'));
});
after(() => rmSync(root, { recursive: true, force: true }));
const freshDir = () => mkdtempSync(join(root, 'd-'));
const line = (n: number) => `${JSON.stringify({ n, pad: 'x'.repeat(80 - String(n).length) })}\n`; // every line the same length

describe('the rotating log file', () => {
  it('writes each line to <data dir>/logs/hub.log, owner-only', () => {
    const dir = freshDir();
    const file = new RotatingLogFile(dir);
    file.write(line(1));
    file.write(line(2));
    file.close();
    const path = join(logDir(dir), LOG_FILE);
    assert.equal(readFileSync(path, 'utf8'), line(1) + line(2));
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(logDir(dir)).mode & 0o777, 0o700);
  });

  it('tightens a log file left readable by others', () => {
    const dir = freshDir();
    mkdirSync(logDir(dir), { recursive: true });
    const path = join(logDir(dir), LOG_FILE);
    writeFileSync(path, line(0));
    chmodSync(path, 0o644);
    const file = new RotatingLogFile(dir);
    file.write(line(1));
    file.close();
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(readFileSync(path, 'utf8'), line(0) + line(1), 'appends, never truncates');
  });

  it('rotates by size and keeps a bounded number of files, newest in hub.log, every line whole', () => {
    const dir = freshDir();
    const size = Buffer.byteLength(line(0));
    const file = new RotatingLogFile(dir, { maxBytes: size * 3, kept: 3 });
    for (let n = 0; n < 20; n += 1) file.write(line(n));
    file.close();
    const names = readdirSync(logDir(dir)).sort();
    assert.deepEqual(names, ['hub.log', 'hub.log.1', 'hub.log.2'], 'at most three files');
    for (const name of names) {
      const path = join(logDir(dir), name);
      assert.ok(statSync(path).size <= size * 3, `${name} within the size bound`);
      assert.equal(statSync(path).mode & 0o777, 0o600, `${name} owner-only`);
    }
    // Three lines a file: 0-2, 3-5, … 18-19; the three kept files hold 12 … 19, read oldest first.
    const kept = logFilesOldestFirst(dir, 3)
      .flatMap((p) => readFileSync(p, 'utf8').split('\n').filter(Boolean))
      .map((l) => (JSON.parse(l) as { n: number }).n);
    assert.deepEqual(kept, [12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('a write that fails is reported once and does not throw; the next write that can succeed does', () => {
    const dir = freshDir();
    const errors: string[] = [];
    const file = new RotatingLogFile(dir, { onError: (e) => errors.push(e.message) });
    file.write(line(1));
    file.close();
    // The logs dir becomes a file: every open fails.
    rmSync(logDir(dir), { recursive: true });
    writeFileSync(logDir(dir), 'not a dir');
    assert.doesNotThrow(() => file.write(line(2)));
    assert.doesNotThrow(() => file.write(line(3)));
    assert.equal(errors.length, 1, 'one report per failure streak');
    rmSync(logDir(dir));
    file.write(line(4));
    file.close();
    assert.equal(readFileSync(join(logDir(dir), LOG_FILE), 'utf8'), line(4));
  });

  it('a disk that fills mid-line leaves no half line: the lines written once there is room again are whole', () => {
    const dir = freshDir();
    // A disk as a full one behaves: the line that meets the end of the space is taken in part
    // (a short write), and every write after it is refused until space is freed.
    let room = Buffer.byteLength(line(1)) + 30;
    const filling = (fd: number, data: string | Uint8Array) => {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      if (room === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const taken = writeSync(fd, bytes.subarray(0, Math.min(room, bytes.length)));
      if (room !== Infinity) room -= taken;
      return taken;
    };
    const errors: string[] = [];
    const file = new RotatingLogFile(dir, { writeSync: filling, onError: (e) => errors.push(e.message) });
    file.write(line(1));
    file.write(line(2));
    file.write(line(3));
    room = Infinity;
    file.write(line(4));
    file.close();
    assert.equal(errors.length, 1, 'the full disk is reported once');
    assert.equal(readFileSync(join(logDir(dir), LOG_FILE), 'utf8'), line(1) + line(4), 'the lines the disk refused are gone whole');
  });
});

describe('following the log (cihub logs -f)', () => {
  it('reads lines as they are appended, holds back an unfinished line, and crosses a rotation without losing or repeating one', () => {
    const dir = freshDir();
    const size = Buffer.byteLength(line(0));
    const file = new RotatingLogFile(dir, { maxBytes: size * 2, kept: 3 });
    file.write(line(0));
    const path = join(logDir(dir), LOG_FILE);
    const tail = new LogTail(path, statSync(path).size);
    assert.deepEqual(tail.read(), [], 'starts after what exists');
    file.write(line(1));
    file.write(line(2)); // rotates: hub.log (0, 1) becomes hub.log.1
    file.write(line(3));
    const seen = tail.read().map((l) => (JSON.parse(l) as { n: number }).n);
    assert.deepEqual(seen, [1, 2, 3]);
    file.close();
    tail.close();
  });

  it('keeps an unterminated line until its newline arrives', () => {
    const dir = freshDir();
    mkdirSync(logDir(dir), { recursive: true });
    const path = join(logDir(dir), LOG_FILE);
    writeFileSync(path, '');
    const tail = new LogTail(path, 0);
    writeFileSync(path, '{"a":1}\n{"b":', { flag: 'a' });
    assert.deepEqual(tail.read(), ['{"a":1}']);
    writeFileSync(path, '2}\n', { flag: 'a' });
    assert.deepEqual(tail.read(), ['{"b":2}']);
    tail.close();
  });

  it('starts reading a file that appears after it began', () => {
    const dir = freshDir();
    const path = join(logDir(dir), LOG_FILE);
    const tail = new LogTail(path, 0);
    assert.deepEqual(tail.read(), []);
    mkdirSync(logDir(dir), { recursive: true });
    writeFileSync(path, '{"late":true}\n');
    assert.deepEqual(tail.read(), ['{"late":true}']);
    renameSync(path, `${path}.1`);
    writeFileSync(path, '{"next":true}\n');
    assert.deepEqual(tail.read(), ['{"next":true}']);
    tail.close();
  });
});
