import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimDataDir, DataDirInUseError, HUB_LOCK_FILE } from './data-dir-lock.js';
import { writeHubInfo } from './data-dir.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-claim-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

const freshDir = () => mkdtempSync(join(root, 'd-'));
const refusal = (dir: string): DataDirInUseError => {
  try {
    claimDataDir(dir).release();
  } catch (err) {
    if (err instanceof DataDirInUseError) return err;
    throw err;
  }
  assert.fail('the second claim was granted');
};

/** Tries the claim in a separate node process, which lets go of it as it exits. */
function claimFromAnotherProcess(dir: string): 'granted' | 'refused' {
  const script = `
    const { claimDataDir, DataDirInUseError } = await import(${JSON.stringify(join(import.meta.dirname, 'data-dir-lock.js'))});
    try { claimDataDir(${JSON.stringify(dir)}); process.stdout.write('granted'); }
    catch (err) { if (!(err instanceof DataDirInUseError)) throw err; process.stdout.write('refused'); }`;
  const answer = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.ok(answer === 'granted' || answer === 'refused', answer);
  return answer;
}

describe('claiming a data dir', () => {
  it('creates a missing data dir, owner-only, holding only an empty hub.lock', () => {
    const dir = join(freshDir(), 'a', 'b');
    const claim = claimDataDir(dir);
    try {
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.deepEqual(readdirSync(dir), [HUB_LOCK_FILE]);
      assert.equal(statSync(join(dir, HUB_LOCK_FILE)).size, 0);
    } finally {
      claim.release();
    }
  });

  it('refuses a second claim while the first is held, naming the dir and the Hub in its hub.json', () => {
    const dir = freshDir();
    const claim = claimDataDir(dir);
    try {
      writeHubInfo(dir, { url: 'http://127.0.0.1:5002', port: 5002, pid: process.pid, startedAt: '2026-12-05T09:00:00.000Z' });
      const err = refusal(dir);
      assert.deepEqual(err.holder && { pid: err.holder.pid, url: err.holder.url }, { pid: process.pid, url: 'http://127.0.0.1:5002' });
      assert.equal(
        err.message,
        `The data dir ${dir} is already in use by the Hub running as pid ${process.pid} at http://127.0.0.1:5002; stop that Hub first, or start this one with another --data-dir.`,
      );
    } finally {
      claim.release();
    }
  });

  it('does not name a pid from a hub.json whose process has ended: the holder is still starting', () => {
    const dir = freshDir();
    const claim = claimDataDir(dir);
    try {
      // 2^22 + 1 is above Linux's largest pid and macOS's, so no process has it.
      writeHubInfo(dir, { url: 'http://127.0.0.1:5002', port: 5002, pid: 4_194_305, startedAt: '2026-12-05T09:00:00.000Z' });
      const err = refusal(dir);
      assert.equal(err.holder, null);
      assert.match(err.message, /in use by another Hub that is still starting;/);
    } finally {
      claim.release();
    }
  });

  it('keeps the first claim, as another process sees it, after a refused one in the same process', () => {
    const dir = freshDir();
    const claim = claimDataDir(dir);
    try {
      refusal(dir);
      // Closing any descriptor of hub.lock would drop this process's fcntl lock; only another process can tell.
      assert.equal(claimFromAnotherProcess(dir), 'refused');
    } finally {
      claim.release();
    }
    assert.equal(claimFromAnotherProcess(dir), 'granted');
  });

  it('is granted again once the holder lets go, and letting go twice is harmless', () => {
    const dir = freshDir();
    const first = claimDataDir(dir);
    first.release();
    first.release();
    const second = claimDataDir(dir);
    second.release();
    assert.ok(existsSync(join(dir, HUB_LOCK_FILE)), 'the file stays; only the lock on it meant anything');
  });
});
