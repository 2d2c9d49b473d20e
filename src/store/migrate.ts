/**
 * Brings hub.db's schema up to the newest migration this build ships, one transaction per step.
 * A file at a schema this build does not know, or a step SQLite refuses, stops the start with a
 * sentence naming the file and the versions, instead of a bare SQLite message or a silent start.
 */
import type Database from 'better-sqlite3';
import type { Migration } from './migrations.js';

type Db = Database.Database;

/**
 * hub.db records a schema version above every migration this build ships: a newer cihub wrote it.
 * Nothing has been written to it when this is thrown.
 */
export class StoreTooNewError extends Error {
  override readonly name = 'StoreTooNewError';
  constructor(
    readonly path: string,
    readonly recordedVersion: number,
    readonly newestKnownVersion: number,
  ) {
    super(
      `${path} was written by a newer cihub (schema version ${recordedVersion}; this cihub knows up to ${newestKnownVersion}): the Hub will not start over it, and left it as it was. Start the Hub with the newer cihub (an older one may come first on PATH), or restore a backup of hub.db this version wrote.`,
    );
  }
}

/** One migration step failed; its transaction rolled back, so the file is at `fromVersion` as it was before the step. */
export class MigrationFailedError extends Error {
  override readonly name = 'MigrationFailedError';
  constructor(
    readonly path: string,
    readonly fromVersion: number,
    readonly migration: Migration,
    cause: unknown,
  ) {
    super(
      `${path} could not be migrated from schema version ${fromVersion} to ${migration.version} (${JSON.stringify(migration.name)}): SQLite refused it with "${cause instanceof Error ? cause.message : String(cause)}". That step was rolled back and changed nothing, so the file stays at schema version ${fromVersion}; the Hub did not start. Restore a backup of hub.db this version wrote, or report this message.`,
      { cause },
    );
  }
}

/**
 * Applies every migration newer than the recorded version, in version order, each in its own
 * transaction; returns the version the file is at afterwards. The recorded version is read
 * before anything is written, so a file a newer cihub wrote is refused untouched: an older cihub
 * earlier on PATH can restart the Hub after an upgrade (docs/deploy.md, Upgrading), and it would
 * otherwise read and write tables whose meaning it does not know.
 */
export function migrate(db: Db, migrations: readonly Migration[]): number {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  const newest = ordered.at(-1)?.version ?? 0;
  let current = recordedVersion(db);
  if (current > newest) throw new StoreTooNewError(db.name, current, newest);
  db.exec('CREATE TABLE IF NOT EXISTS schema_migration (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const record = db.prepare('INSERT INTO schema_migration (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of ordered) {
    if (m.version <= current) continue;
    try {
      db.transaction(() => {
        db.exec(m.sql);
        record.run(m.version, m.name, new Date().toISOString());
      })();
    } catch (err) {
      throw new MigrationFailedError(db.name, current, m, err);
    }
    current = m.version;
  }
  return current;
}

/** The newest schema version the file records, 0 for a file with none; reads only. */
function recordedVersion(db: Db): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migration'").get();
  if (table === undefined) return 0;
  return (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migration').get() as { v: number }).v;
}
