/**
 * SQLite's transient refusals as one catalogued error. A store another process holds locked
 * (SQLITE_BUSY), a full disk (SQLITE_FULL), a file that turned read-only or was moved
 * (SQLITE_READONLY*) or an I/O error are conditions of the machine, not bugs: a request that
 * needed a write answers 503 HUB_ERR_STORE_UNAVAILABLE and may be retried, and a background
 * task logs it and runs again (issue 9, defect 1). Anything else (a constraint, a bad
 * statement) is a bug and stays as it is.
 */
import { HubError } from '../errors.js';

const TRANSIENT = /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|PROTOCOL|NOMEM)/;

/** The SQLite result code of an error thrown by better-sqlite3, or null. */
export function sqliteCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
}

/** The error a caller sees: HUB_ERR_STORE_UNAVAILABLE for a transient refusal, the error itself otherwise. */
export function translateStoreError(err: unknown): unknown {
  const code = sqliteCode(err);
  if (code === null || !TRANSIENT.test(code)) return err;
  return new HubError('HUB_ERR_STORE_UNAVAILABLE', `this Hub's database is not writable right now (${code}); retry in a moment`, {
    details: { sqliteCode: code },
    cause: err,
  });
}
