import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirUnusableError } from '../config/data-dir-unusable.js';
import { DATABASE_FILE_NAME, openDatabase, type Db } from './database.js';
import { migrate, MigrationFailedError, StoreTooNewError } from './migrate.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import Database from 'better-sqlite3';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-db-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

const freshPath = () => join(mkdtempSync(join(root, 'd-')), DATABASE_FILE_NAME);

function versions(db: Db): number[] {
  return (db.prepare('SELECT version FROM schema_migration ORDER BY version').all() as { version: number }[]).map((r) => r.version);
}

function tableExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

const latest = Math.max(...MIGRATIONS.map((m) => m.version));

describe('openDatabase', () => {
  it('applies every shipped migration to a new file and records each once', () => {
    const db = openDatabase(freshPath());
    try {
      assert.deepEqual(
        versions(db),
        MIGRATIONS.map((m) => m.version),
      );
      assert.ok(tableExists(db, 'api_key'));
    } finally {
      db.close();
    }
  });

  it('is idempotent across reopen: nothing is applied twice and data survives', () => {
    const path = freshPath();
    const first = openDatabase(path);
    first.prepare("INSERT INTO api_key (id, name, scope, key_hash, created_at) VALUES ('k1', 'n', 'inference', 'h', 't')").run();
    first.close();
    const second = openDatabase(path);
    try {
      assert.deepEqual(
        versions(second),
        MIGRATIONS.map((m) => m.version),
      );
      assert.equal(migrate(second, MIGRATIONS), latest);
      assert.deepEqual(
        versions(second),
        MIGRATIONS.map((m) => m.version),
      );
      assert.equal((second.prepare('SELECT COUNT(*) AS n FROM api_key').get() as { n: number }).n, 1);
    } finally {
      second.close();
    }
  });

  it('turns foreign keys on and uses WAL', () => {
    const db = openDatabase(freshPath());
    try {
      assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      db.close();
    }
  });
});

describe('migrate', () => {
  const one: Migration = { version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER);' };
  const two: Migration = { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER);' };
  const broken: Migration = {
    version: 3,
    name: 'broken',
    sql: 'CREATE TABLE three (x INTEGER); INSERT INTO no_such_table VALUES (1);',
  };

  it('applies migrations in version order whatever order the list is in', () => {
    const db = openDatabase(freshPath(), [two, one]);
    try {
      assert.deepEqual(versions(db), [1, 2]);
      assert.ok(tableExists(db, 'one') && tableExists(db, 'two'));
    } finally {
      db.close();
    }
  });

  it('applies only the migrations newer than the recorded version', () => {
    const path = freshPath();
    openDatabase(path, [one]).close();
    const db = openDatabase(path, [one, two]);
    try {
      assert.deepEqual(versions(db), [1, 2]);
    } finally {
      db.close();
    }
  });

  it('leaves the previous version intact when a migration fails, statements before the failure included', () => {
    const path = freshPath();
    openDatabase(path, [one]).close();
    assert.throws(() => openDatabase(path, [one, two, broken]), /no_such_table/);
    const db = openDatabase(path, [one, two]);
    try {
      // two ran in its own transaction and committed; broken rolled back whole.
      assert.deepEqual(versions(db), [1, 2]);
      assert.ok(tableExists(db, 'two'));
      assert.equal(tableExists(db, 'three'), false);
    } finally {
      db.close();
    }
  });

  it('after a failure, a fixed list carries the store forward from where it stopped', () => {
    const path = freshPath();
    assert.throws(() => openDatabase(path, [one, broken]));
    const fixed: Migration = { ...broken, sql: 'CREATE TABLE three (x INTEGER);' };
    const db = openDatabase(path, [one, fixed]);
    try {
      assert.deepEqual(versions(db), [1, 3]);
      assert.ok(tableExists(db, 'three'));
    } finally {
      db.close();
    }
  });
});

describe('openDatabase over a damaged file', () => {
  it('throws a sentence naming the file and the way out, and leaves the file as it was', () => {
    const path = freshPath();
    const garbage = Buffer.from('not a database '.repeat(500));
    writeFileSync(path, garbage);
    assert.throws(
      () => openDatabase(path),
      (err: Error) => {
        assert.ok(err.message.startsWith(`${path} is damaged (SQLITE_NOTADB)`), err.message);
        assert.match(err.message, /Restore it from a backup/);
        return true;
      },
    );
    assert.deepEqual(readFileSync(path), garbage);
  });
});

/** What a refused start must leave as it was: the file's bytes, its recorded versions, its tables' columns and its rows. */
function facts(path: string): { bytes: Buffer; versions: number[]; peerColumns: string[]; apiKeys: number } {
  const bytes = readFileSync(path);
  // Opened as SQLite itself, not through openDatabase: what is read here must not depend on the code under test.
  const raw = new Database(path);
  try {
    return {
      bytes,
      versions: versions(raw),
      peerColumns: (raw.prepare('PRAGMA table_info(hub_pool_peer)').all() as { name: string }[]).map((c) => c.name),
      apiKeys: (raw.prepare('SELECT COUNT(*) AS n FROM api_key').get() as { n: number }).n,
    };
  } finally {
    raw.close();
  }
}

const addKey = (db: Db) => db.prepare("INSERT INTO api_key (id, name, scope, key_hash, created_at) VALUES ('k1', 'n', 'inference', 'h', 't')").run();

describe('openDatabase over a hub.db a newer cihub wrote', () => {
  it('refuses it with a sentence naming the file, its schema version, the newest this build knows and the way out, and writes nothing', () => {
    const path = freshPath();
    const later: Migration = { version: latest + 1, name: 'a later build', sql: 'CREATE TABLE later (x INTEGER);' };
    const newer = openDatabase(path, [...MIGRATIONS, later]);
    addKey(newer);
    newer.close();
    const before = facts(path);

    assert.throws(
      () => openDatabase(path),
      (err: Error) => {
        assert.ok(err instanceof StoreTooNewError, `${err.name}: ${err.message}`);
        assert.ok(err.message.startsWith(`${path} was written by a newer cihub`), err.message);
        assert.ok(err.message.includes(`schema version ${latest + 1}; this cihub knows up to ${latest})`), err.message);
        assert.match(err.message, /Start the Hub with the newer cihub/);
        assert.match(err.message, /restore a backup of hub\.db this version wrote/);
        assert.equal(err.message.split('\n').length, 1, 'one line');
        return true;
      },
    );
    assert.deepEqual(facts(path), before, 'bytes, versions, columns and rows as the newer cihub left them');
  });

  it('refuses it through migrate as well, before creating or writing anything', () => {
    const path = freshPath();
    const newer = openDatabase(path, [...MIGRATIONS, { version: latest + 3, name: 'later still', sql: 'SELECT 1;' }]);
    newer.close();
    const before = facts(path);
    const db = new Database(path);
    try {
      assert.throws(
        () => migrate(db, MIGRATIONS),
        (err: Error) => err instanceof StoreTooNewError && err.recordedVersion === latest + 3 && err.newestKnownVersion === latest,
      );
    } finally {
      db.close();
    }
    assert.deepEqual(facts(path), before);
  });
});

describe('openDatabase when a migration step fails', () => {
  // Migration 4 adds confirm_failed_at, then crossed_at: a file that already has crossed_at (added
  // by hand, or by a build that shipped it differently) fails the step at its second statement.
  const upTo3 = MIGRATIONS.filter((m) => m.version <= 3);
  const step4 = MIGRATIONS.find((m) => m.version === 4)!;

  it("names the file, the step and its migration, says the step changed nothing, and carries SQLite's message as the cause", () => {
    const path = freshPath();
    const at3 = openDatabase(path, upTo3);
    addKey(at3);
    at3.exec('ALTER TABLE hub_pool_peer ADD COLUMN crossed_at TEXT');
    at3.close();
    const before = facts(path);

    assert.throws(
      () => openDatabase(path),
      (err: Error) => {
        assert.ok(err instanceof MigrationFailedError, `${err.name}: ${err.message}`);
        assert.ok(err.message.startsWith(`${path} could not be migrated from schema version 3 to 4 (${JSON.stringify(step4.name)})`), err.message);
        assert.match(err.message, /SQLite refused it with "duplicate column name: crossed_at"/);
        assert.match(err.message, /That step was rolled back and changed nothing, so the file stays at schema version 3/);
        assert.equal(err.message.split('\n').length, 1, 'one line');
        assert.equal((err.cause as Error).message, 'duplicate column name: crossed_at');
        assert.equal((err.cause as { code?: string }).code, 'SQLITE_ERROR');
        return true;
      },
    );
    const after = facts(path);
    // The step's first statement (confirm_failed_at) ran before the failing one: rolled back with it.
    assert.equal(after.peerColumns.includes('confirm_failed_at'), false, 'the first statement of the step was rolled back');
    assert.deepEqual(after, before, 'bytes, versions, columns and rows as they were before the start');
  });

  it('names the version the earlier steps of the same start reached, which stay applied', () => {
    const path = freshPath();
    const at1 = openDatabase(
      path,
      MIGRATIONS.filter((m) => m.version <= 1),
    );
    at1.close();
    const broken: Migration = { version: latest + 1, name: 'broken', sql: 'CREATE TABLE t (x INTEGER); INSERT INTO no_such_table VALUES (1);' };
    assert.throws(
      () => openDatabase(path, [...MIGRATIONS, broken]),
      (err: Error) =>
        err instanceof MigrationFailedError && err.fromVersion === latest && err.message.includes(`from schema version ${latest} to ${latest + 1}`),
    );
    assert.deepEqual(
      facts(path).versions,
      MIGRATIONS.map((m) => m.version),
    );
  });

  it('words a step the disk had no room for as the full disk, the refusal whose fix it needs', () => {
    const path = freshPath();
    // max_page_count caps the file where it is: the step's inserts then fail as a full disk would (SQLITE_FULL).
    const filler: Migration = {
      version: latest + 1,
      name: 'filler',
      sql: 'PRAGMA max_page_count = 1; CREATE TABLE big (x TEXT); INSERT INTO big SELECT hex(randomblob(4000)) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 50) SELECT n FROM c);',
    };
    assert.throws(
      () => openDatabase(path, [...MIGRATIONS, filler]),
      (err: Error) => {
        assert.ok(err instanceof DataDirUnusableError, `${err.name}: ${err.message}`);
        assert.ok(err.message.startsWith(`The Hub cannot write ${path} (SQLITE_FULL)`), err.message);
        return true;
      },
    );
    assert.deepEqual(
      facts(path).versions,
      MIGRATIONS.map((m) => m.version),
      'the steps before it stay applied',
    );
  });
});
