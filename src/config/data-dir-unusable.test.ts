import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE_NAME, openDatabase } from '../store/database.js';
import { loadOrCreateOperatorKey, OPERATOR_KEY_FILE } from './data-dir.js';
import { claimDataDir, HUB_LOCK_FILE } from './data-dir-lock.js';
import { ensureDataDir } from './data-dir-modes.js';
import { DataDirUnusableError } from './data-dir-unusable.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-unusable-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

const freshDir = () => mkdtempSync(join(root, 'd-'));
const user = userInfo().username;

/** The refusal `open` throws: a DataDirUnusableError naming `path`, its data dir and the account. */
function refusal(open: () => unknown, dataDir: string, path: string, reason: string): void {
  assert.throws(open, (err: unknown) => {
    assert.ok(err instanceof DataDirUnusableError, `a DataDirUnusableError, not ${String(err)}`);
    assert.equal(
      err.message,
      `The Hub cannot use ${path} (${reason}): the data dir ${dataDir} and what the Hub keeps in it must be writable by ${user}, the user running this Hub.`,
    );
    return true;
  });
}

// A directory where the Hub keeps a file stands in for a file this account may not open: it is
// refused alike by every account, root included, which ignores permission bits.
describe('a data dir holding a directory where the Hub keeps a file', () => {
  it('hub.lock: the claim is refused with a sentence naming it and the account', () => {
    const dir = freshDir();
    mkdirSync(join(dir, HUB_LOCK_FILE));
    refusal(() => claimDataDir(dir), dir, join(dir, HUB_LOCK_FILE), 'it is a directory, not a file');
  });

  it('hub.db: opening the store is refused with a sentence naming it and the account', () => {
    const dir = freshDir();
    const path = join(dir, DATABASE_FILE_NAME);
    mkdirSync(path);
    refusal(() => openDatabase(path), dir, path, 'it is a directory, not a file');
  });

  it('operator.key: reading the key is refused with a sentence naming it and the account', () => {
    const dir = freshDir();
    mkdirSync(join(dir, OPERATOR_KEY_FILE));
    refusal(() => loadOrCreateOperatorKey(dir), dir, join(dir, OPERATOR_KEY_FILE), 'it is a directory, not a file');
  });
});

describe('a data dir that is a file', () => {
  it('is refused when it is claimed, naming it', () => {
    const dir = join(freshDir(), 'not-a-dir');
    writeFileSync(dir, '');
    refusal(() => claimDataDir(dir), dir, dir, 'it is not a directory');
  });
});

describe('a data dir to be made on a disk that is read-only', () => {
  it("is refused naming the dir, EROFS and the read-only disk, where Node's recursive mkdir says ENOENT", () => {
    const dir = join(freshDir(), 'data');
    // What node:fs answers there: ENOENT from the recursive mkdir (nodejs/node#47098), EROFS from a plain one.
    const readOnlyDisk = (path: string, options: { recursive?: boolean }) => {
      const code = options.recursive === true ? 'ENOENT' : 'EROFS';
      throw Object.assign(new Error(`${code}: mkdir '${path}'`), { code, path });
    };
    assert.throws(
      () => claimDataDir(dir, readOnlyDisk),
      (err: unknown) => {
        assert.ok(err instanceof DataDirUnusableError, `a DataDirUnusableError, not ${String(err)}`);
        assert.equal(
          err.message,
          `The Hub cannot write ${dir} (EROFS): the disk holding the data dir ${dir} is read-only to this Hub (mounted read-only, or outside what a service sandbox such as systemd's ProtectSystem=strict leaves writable); make it writable, or start the Hub with another --data-dir.`,
        );
        return true;
      },
    );
  });
});

describe('a data dir that is a symlink to a directory that is gone', () => {
  it("fails with the recursive mkdir's own ENOENT, not the EEXIST a plain mkdir of the link gives", () => {
    const dir = join(freshDir(), 'data');
    symlinkSync(join(root, 'gone', 'deeper'), dir);
    assert.throws(() => claimDataDir(dir), { code: 'ENOENT' });
  });
});

describe('a data dir whose files another account owns', () => {
  it('is refused when a file is to be made owner-only, naming it and the account', () => {
    const dir = freshDir();
    const path = join(dir, DATABASE_FILE_NAME);
    writeFileSync(path, '', { mode: 0o644 });
    // What the kernel answers a chmod by an account that does not own the file (root would succeed).
    const notOwner = (p: string) => {
      if (p === path) throw Object.assign(new Error(`EPERM: operation not permitted, chmod '${p}'`), { code: 'EPERM', path: p });
    };
    refusal(() => ensureDataDir(dir, notOwner), dir, path, 'EPERM');
  });
});
