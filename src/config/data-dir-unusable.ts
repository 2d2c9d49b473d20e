/**
 * A data dir this account cannot use: a file in it the Hub may not open or write (another
 * account's, a read-only mode or disk), or a directory where the Hub keeps a file. SQLite says
 * only "unable to open database file" and node:fs "EISDIR: illegal operation on a directory",
 * neither naming the file nor the fix (seen with a data dir a Hub run as root had created, then
 * started as another account). The start stops with one sentence naming the path and the account, and
 * `cihub serve` reports it as the other data-dir refusals are (exit 2). A disk with no room left
 * is refused the same way, with its own fix: node:fs said only "ENOSPC: no space left on device,
 * write", naming no file (a start on a full tmpfs wrote hub.lock and then failed at settings.json).
 * A disk that failed a read or write is the third: SQLite reports a disk with no room for its -shm file
 * only as an I/O error (SQLITE_IOERR_SHMSIZE), and a start over an existing hub.db on a full tmpfs
 * ended with "cihub failed: disk I/O error", naming neither the file nor the disk, exit 1.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { sqliteCode } from '../store/store-errors.js';

/** Errno codes of a path this account may not open or write, or that is the wrong kind of entry. */
const REFUSED_ERRNO: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EROFS', 'EISDIR', 'ENOTDIR']);
/** SQLite's codes for the same: it cannot open the file, or opened it read-only. */
const REFUSED_SQLITE = /^SQLITE_(CANTOPEN|READONLY|PERM)/;
/** No room left for the file: the disk is full, or this account's quota is spent. */
const FULL_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
/** The disk failed a read or write: an I/O error, which is also all SQLite says of a full disk at times (SQLITE_IOERR_SHMSIZE). */
const DISK_FAILED = /^(EIO|SQLITE_IOERR)/;

/** Why the Hub cannot use the path: this account may not, the disk is read-only, has no room, or failed it. */
type Refusal = 'account' | 'read-only' | 'full' | 'disk-failed';

export class DataDirUnusableError extends Error {
  constructor(
    readonly dataDir: string,
    readonly path: string,
    reason: string,
    options: { cause: unknown; refusal?: Refusal },
  ) {
    super(refusalText(dataDir, path, reason, options.refusal ?? 'account'), { cause: options.cause });
    this.name = 'DataDirUnusableError';
  }
}

function refusalText(dataDir: string, path: string, reason: string, refusal: Refusal): string {
  switch (refusal) {
    case 'full':
      return `The Hub cannot write ${path} (${reason}): the disk holding the data dir ${dataDir} has no room left; free some space there and start the Hub again.`;
    case 'disk-failed':
      return `The Hub cannot use ${path} (${reason}): the disk holding the data dir ${dataDir} failed to read or write it, as a full or failing disk does; free some space there, or check the disk, and start the Hub again.`;
    case 'read-only':
      return `The Hub cannot write ${path} (${reason}): the disk holding the data dir ${dataDir} is read-only to this Hub (mounted read-only, or outside what a service sandbox such as systemd's ProtectSystem=strict leaves writable); make it writable, or start the Hub with another --data-dir.`;
    case 'account':
      return `The Hub cannot use ${path} (${reason}): the data dir ${dataDir} and what the Hub keeps in it must be writable by ${runningUser()}, the user running this Hub.`;
  }
}

/**
 * The error for a failure to open or write `path` in `dataDir`: a DataDirUnusableError when the
 * account, the kind of entry, a read-only, full or failing disk is the cause, `err` unchanged otherwise. `expected` is what the
 * Hub keeps at that path.
 */
export function dataDirUnusable(dataDir: string, path: string, err: unknown, expected: 'file' | 'directory' = 'file'): unknown {
  const mismatch = kindMismatch(path, expected);
  if (mismatch !== null) return new DataDirUnusableError(dataDir, path, mismatch, { cause: err });
  const code = sqliteCode(err) ?? (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string') return err;
  if (FULL_CODES.has(code)) return new DataDirUnusableError(dataDir, path, code, { cause: err, refusal: 'full' });
  if (DISK_FAILED.test(code)) return new DataDirUnusableError(dataDir, path, code, { cause: err, refusal: 'disk-failed' });
  if (!(REFUSED_ERRNO.has(code) || REFUSED_SQLITE.test(code))) return err;
  // "Must be writable by root" named no fix for a read-only disk, which no account may write: said
  // for a data dir on a read-only tmpfs, where SQLite's SQLITE_CANTOPEN does not tell the two apart.
  const readOnly = code === 'EROFS' || onReadOnlyDisk(dataDir);
  return new DataDirUnusableError(dataDir, path, code, { cause: err, refusal: readOnly ? 'read-only' : 'account' });
}

/** Whether the kernel refuses writes under `dir` because its filesystem is read-only (access(2) answers EROFS for every account). */
function onReadOnlyDisk(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EROFS';
  }
}

function kindMismatch(path: string, expected: 'file' | 'directory'): string | null {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    return null;
  }
  if (expected === 'file' && isDirectory) return 'it is a directory, not a file';
  if (expected === 'directory' && !isDirectory) return 'it is not a directory';
  return null;
}

/** The account name, or its uid where it has none (a container run with an arbitrary uid). */
function runningUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}
