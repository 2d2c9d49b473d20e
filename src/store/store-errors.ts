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

/** Errno codes of a file write the machine refused for now: a full disk or quota, a read-only or failing disk, permissions changed under the Hub. */
const TRANSIENT_FILE_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EACCES', 'EPERM']);

/**
 * Errno codes of a file whose place holds something a rename cannot replace: a directory (EISDIR),
 * a mount point (EBUSY). ENOTDIR is the other way round (the data dir itself is no longer a
 * directory) and is said so below.
 */
const NOT_A_FILE_ERRNO = new Set(['EISDIR', 'EBUSY']);

/**
 * The error a caller sees when a file the Hub keeps in its data dir (settings.json) could not be
 * written: HUB_ERR_STORE_UNAVAILABLE for the same machine conditions SQLite reports as transient,
 * and for something other than a file in its place, the error itself otherwise. A full or
 * read-only disk answered a settings PATCH 500 before, and a directory made where settings.json
 * was still did (HUB_ERR_INTERNAL, 'a bug', with a stack in the log).
 */
export function translateFileWriteError(err: unknown, file: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') return err;
  if (NOT_A_FILE_ERRNO.has(code))
    return new HubError(
      'HUB_ERR_STORE_UNAVAILABLE',
      `${file} in this Hub's data dir cannot be replaced (${code}): something other than a file is in its place, such as a directory; remove it, and the next change writes the file whole`,
      { details: { errno: code }, cause: err },
    );
  if (code === 'ENOTDIR')
    return new HubError(
      'HUB_ERR_STORE_UNAVAILABLE',
      `${file} cannot be written (ENOTDIR): this Hub's data dir, or a directory on the way to it, is no longer a directory; put the data dir back and the next change writes the file whole`,
      { details: { errno: code }, cause: err },
    );
  if (!TRANSIENT_FILE_ERRNO.has(code)) return err;
  return new HubError('HUB_ERR_STORE_UNAVAILABLE', `this Hub's data dir is not writable right now (${code} writing ${file}); retry in a moment`, {
    details: { errno: code },
    cause: err,
  });
}
