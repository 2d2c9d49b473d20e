/**
 * Opens the Hub's SQLite store (better-sqlite3) and brings its schema up to date.
 */
import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations.js';

export type Db = Database.Database;

export const DATABASE_FILE_NAME = 'hub.db';

export function openDatabase(path: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, migrations);
  return db;
}

/** Applies every migration newer than the recorded version; each in its own transaction, so a failure leaves the previous version intact. */
export function migrate(db: Db, migrations: readonly Migration[]): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migration (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const current = (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migration').get() as { v: number }).v;
  const record = db.prepare('INSERT INTO schema_migration (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    })();
  }
  return (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migration').get() as { v: number }).v;
}
