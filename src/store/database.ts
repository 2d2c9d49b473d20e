/**
 * Opens the Hub's SQLite store (better-sqlite3) and brings its schema up to date.
 */
import { closeSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { dataDirUnusable } from '../config/data-dir-unusable.js';
import { migrate, MigrationFailedError } from './migrate.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { sqliteCode, translateStoreError } from './store-errors.js';

export type Db = Database.Database;

export const DATABASE_FILE_NAME = 'hub.db';

/**
 * How long one statement waits for a lock another process holds: 100 ms. better-sqlite3 waits
 * synchronously, so this is time the whole event loop stands still for every app; at the
 * former 5 s one foreign lock froze every request for 5 s per write. Past it the write fails
 * as HUB_ERR_STORE_UNAVAILABLE (store-errors.ts) and is retried by whoever needed it. The Hub
 * is the only writer of its own database (the CLI never opens it), so a lock held longer than
 * this is someone else's.
 */
export const STORE_BUSY_TIMEOUT_MS = 100;

/** The methods through which a statement touches the file: each answers transient failures as HUB_ERR_STORE_UNAVAILABLE. */
const STATEMENT_METHODS = ['run', 'get', 'all', 'iterate'] as const;

export function openDatabase(path: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  let db: Db | null = null;
  try {
    createOwnerOnly(path);
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${STORE_BUSY_TIMEOUT_MS}`);
    migrate(db, migrations);
  } catch (err) {
    db?.close();
    throw startRefusal(path, err);
  }
  translateErrors(db);
  return db;
}

/** SQLite's codes for a file that is not a database it can read. */
const DAMAGED = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

/**
 * A damaged hub.db stops the start with a sentence saying what to do, and is left as it is. The
 * Hub never starts over it with a fresh one: a new database is a new node identity, and every
 * peer would refuse this Hub until each pairing was redone (spec, identity; the 28-hour outage
 * of a recreated database). One this account cannot open or write (or a directory in its place)
 * stops it too, naming the file and the account (config/data-dir-unusable). Any other error is
 * returned unchanged, migrate.ts's refusals among them (a file a newer cihub wrote, a step that
 * failed).
 */
function startRefusal(path: string, err: unknown): unknown {
  // A migration step that failed because the file is damaged, or the disk full or read-only, is
  // that refusal: its fix is the same. Any other failed step keeps the step's own sentence.
  const cause = err instanceof MigrationFailedError ? err.cause : err;
  const code = sqliteCode(cause);
  if (code === null || !DAMAGED.has(code)) {
    const unusable = dataDirUnusable(dirname(path), path, cause);
    return unusable === cause ? err : unusable;
  }
  return new StoreDamagedError(
    `${path} is damaged (${code}): the Hub will not start over it. Restore it from a backup; or move it aside to start this Hub with a new identity, then pair it again with each peer`,
    { cause: err },
  );
}

/** hub.db is not a database SQLite can read: the start stops, and the fix is in the data dir. */
export class StoreDamagedError extends Error {
  override readonly name = 'StoreDamagedError';
}

/**
 * Creates the database file owner-only (0600) before SQLite opens it. SQLite gives the -wal
 * and -shm files it creates beside it the database file's permissions, so all three are
 * owner-only; left to the umask they were 0644 (issue 9, defect 16).
 */
function createOwnerOnly(path: string): void {
  if (path === ':memory:' || path === '') return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    // An existing file is SQLite's to open (ensureDataDir has tightened it already).
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** Wraps every statement prepared from now on, and every transaction, so SQLite's transient refusals surface as one catalogued error. */
function translateErrors(db: Db): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of STATEMENT_METHODS) {
      (statement as unknown as Record<string, unknown>)[method] = translated((statement[method] as (...args: unknown[]) => unknown).bind(statement));
    }
    return statement;
  }) as Db['prepare'];
  db.exec = translated(db.exec.bind(db)) as Db['exec'];
  // A transaction's BEGIN and COMMIT are statements better-sqlite3 prepares itself, past the
  // wrapper above. In WAL mode a transaction's writes reach the file only at its COMMIT, so that
  // is the statement a full disk refuses (SQLITE_FULL, seen on a full tmpfs), and it escaped as a 500.
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: unknown[]) => unknown) => {
    const run = transaction(fn);
    return Object.assign(translated(run), {
      default: translated(run.default),
      deferred: translated(run.deferred),
      immediate: translated(run.immediate),
      exclusive: translated(run.exclusive),
    });
  }) as Db['transaction'];
}

/** `run` with SQLite's transient refusals thrown as HUB_ERR_STORE_UNAVAILABLE (store-errors.ts). */
function translated<A extends unknown[], R>(run: (...args: A) => R): (...args: A) => R {
  return (...args: A) => {
    try {
      return run(...args);
    } catch (err) {
      throw translateStoreError(err);
    }
  };
}
