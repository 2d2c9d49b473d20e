import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { HubError } from '../errors.js';
import { openDatabase, STORE_BUSY_TIMEOUT_MS } from './database.js';
import { PeerNonces } from './peer-nonces.js';
import { translateFileWriteError } from './store-errors.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

const dbPath = () => join(scratchDir('cihub-store-'), 'hub.db');

describe('the store answers transient SQLite refusals as HUB_ERR_STORE_UNAVAILABLE', () => {
  it('a write while another connection holds the lock: fails fast, as a 503, and works once the lock is gone', () => {
    const path = dbPath();
    const db = openDatabase(path);
    const nonces = new PeerNonces(db);
    const other = new Database(path);
    other.exec('BEGIN EXCLUSIVE');
    assert.throws(
      () => nonces.remember('k1', 1_000),
      (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_STORE_UNAVAILABLE' && err.status === 503 && /SQLITE_BUSY/.test(err.message),
    );
    // The wait is synchronous (the whole event loop stands still): bounded small, not the former 5 s.
    assert.equal(db.pragma('busy_timeout', { simple: true }), STORE_BUSY_TIMEOUT_MS);
    assert.ok(STORE_BUSY_TIMEOUT_MS <= 250);
    other.exec('COMMIT');
    assert.equal(nonces.remember('k1', 1_000), true);
    other.close();
    db.close();
  });

  it('a full database (SQLITE_FULL)', () => {
    const db = openDatabase(dbPath());
    db.pragma('max_page_count = ' + String((db.pragma('page_count', { simple: true }) as number) + 1));
    const nonces = new PeerNonces(db);
    assert.throws(
      () => {
        for (let i = 0; i < 10_000; i += 1) nonces.remember(`nonce-${i}-${'x'.repeat(200)}`, 1_000);
      },
      (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_STORE_UNAVAILABLE' && /SQLITE_FULL/.test(err.message),
    );
    db.close();
  });

  it('a transaction whose COMMIT is refused: a 503, with nothing of it kept', () => {
    const path = dbPath();
    const db = openDatabase(path);
    const nonces = new PeerNonces(db);
    // The Hub runs WAL, where a full disk refuses a transaction at its COMMIT, which writes the
    // WAL. No test can fill a disk without root; a rollback journal refuses the same statement for
    // another transient reason, a reader in the way of the write, which any account can arrange.
    db.pragma('journal_mode = DELETE');
    const reader = new Database(path);
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM peer_nonce').get();
    const both = db.transaction(() => {
      nonces.remember('k1', 1_000);
      nonces.remember('k2', 1_000);
    });
    assert.throws(
      () => both(),
      (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_STORE_UNAVAILABLE' && /SQLITE_BUSY/.test(err.message),
    );
    reader.exec('COMMIT');
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM peer_nonce').get() as { n: number }).n, 0, 'the transaction was rolled back whole');
    reader.close();
    db.close();
  });

  it('leaves a bug (a constraint, a bad statement) as it is', () => {
    const db = openDatabase(dbPath());
    assert.throws(
      () => db.prepare('SELECT nope FROM nowhere').get(),
      (err: unknown) => !(err instanceof HubError),
    );
    db.close();
  });
});

describe('a file write in the data dir that the machine refuses', () => {
  const errno = (code: string) => Object.assign(new Error(`${code}: refused`), { code });

  it('is HUB_ERR_STORE_UNAVAILABLE for a full, read-only or failing disk, naming the file and the errno', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EACCES', 'EPERM']) {
      const translated = translateFileWriteError(errno(code), 'settings.json');
      assert.ok(translated instanceof HubError, code);
      assert.equal(translated.code, 'HUB_ERR_STORE_UNAVAILABLE');
      assert.match(translated.message, new RegExp(`${code} writing settings\\.json`));
    }
  });

  it('names the thing in the way: a directory where the file goes (EISDIR), or a data dir that is no longer a directory (ENOTDIR)', () => {
    const cases = [
      { code: 'EISDIR', says: /something other than a file is in its place/ },
      { code: 'ENOTDIR', says: /data dir, or a directory on the way to it, is no longer a directory/ },
    ];
    for (const c of cases) {
      const translated = translateFileWriteError(errno(c.code), 'settings.json');
      assert.ok(translated instanceof HubError && translated.code === 'HUB_ERR_STORE_UNAVAILABLE', c.code);
      assert.match(translated.message, c.says);
    }
  });

  it('leaves any other error as it is', () => {
    const bug = errno('EEXIST');
    assert.equal(translateFileWriteError(bug, 'settings.json'), bug);
    const plain = new Error('not a file error');
    assert.equal(translateFileWriteError(plain, 'settings.json'), plain);
  });
});
