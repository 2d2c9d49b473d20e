/**
 * The one way the Hub replaces a file it owns (settings.json, operator.key, hub.json, the
 * generated GGUF models): write a temporary file beside it, fsync it, rename it over the target,
 * then fsync the directory. A rename alone is atomic only for the name: after a power cut the
 * new name can point at a file whose blocks were never written (ext4's delayed allocation,
 * APFS without F_FULLFSYNC), which is an empty settings.json or operator.key. fsync on the file
 * before the rename orders the data ahead of the name; fsync on the directory makes the rename
 * itself durable, so a Hub that answered a PATCH does not come back with the old settings.
 *
 * `exclusive` is create-only: the temporary file is linked into place instead of renamed, which
 * fails with EEXIST when another process created the target first, so a secret one process minted
 * is never overwritten by another's.
 *
 * Once the rename (or link) has happened, the new file is what every reader sees, this process
 * and the next start alike. A directory fsync that fails after it (EIO) therefore does not make
 * the write a failure: a caller told "refused" keeps the old value in memory while the disk holds
 * the new one, and the next start silently applies a change the operator was told had not
 * happened. The write returns what it could not make durable instead, for the caller to log.
 */
import * as nodeFs from 'node:fs';
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** The file-system calls the write makes, in order; node:fs in production. */
export interface AtomicWriteFs {
  openSync(path: string, flags: string, mode?: number): number;
  writeSync(fd: number, data: Uint8Array): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  linkSync(existing: string, newPath: string): void;
  unlinkSync(path: string): void;
}

export interface AtomicWriteOptions {
  /** Permission bits for the new file (default 0600: everything this helper writes is the Hub's own). */
  readonly mode?: number;
  /** Create only: fail with EEXIST rather than replace a file that is already there. */
  readonly exclusive?: boolean;
  /** Tests inject a recorder; production uses node:fs. */
  readonly fs?: AtomicWriteFs;
}

const DEFAULT_MODE = 0o600;

/** A write that put its file in place but could not make the rename durable: the directory fsync failed. */
export interface UnsyncedWrite {
  readonly path: string;
  /** The errno code (or message) of the failed directory sync. */
  readonly error: string;
}

/** The warning for an unsynced write; the new file is in place, only a power cut could undo it. */
export function unsyncedWriteText(u: UnsyncedWrite): string {
  return `${u.path} was replaced, but syncing its directory failed (${u.error}); the new file is in use, though a power cut before the disk catches up may bring back the previous one`;
}

/**
 * Writes `data` to `path` so that after a crash or power cut the file is either the old one or
 * all of the new one. Throws when the file was not replaced; once it was, answers null, or what
 * could not be made durable.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): UnsyncedWrite | null {
  const fs = options.fs ?? nodeFs;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', options.mode ?? DEFAULT_MODE);
  let placed = false;
  try {
    try {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes.subarray(offset));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (options.exclusive === true) fs.linkSync(tmp, path);
    else fs.renameSync(tmp, path);
    placed = options.exclusive !== true;
  } finally {
    // After a rename the temporary name is gone; after a link (or a failure) it must be removed.
    if (!placed) unlinkQuietly(fs, tmp);
  }
  return syncDirectory(fs, path);
}

/** The name writeFileAtomic gives its temporary file: `.<name>.<pid>.<8 hex digits>.tmp`. */
const TEMPORARY_NAME = /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/;

/**
 * Removes the temporary files a process killed mid-write left in `dir` (its rename never came,
 * so nothing else ever removes them), and answers their names. Only for a directory no other
 * process is writing into: the Hub calls it on its data dir once it holds the data dir's lock.
 */
export function removeLeftoverTemporaryFiles(dir: string): string[] {
  const leftovers = readdirSync(dir).filter((name) => TEMPORARY_NAME.test(name));
  for (const name of leftovers) rmSync(join(dir, name), { force: true });
  return leftovers;
}

function unlinkQuietly(fs: AtomicWriteFs, path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * Makes the directory entry of `path` durable, or answers why it could not. Windows cannot open
 * a directory for fsync (EISDIR/EPERM); there the rename is as durable as NTFS makes it, which is
 * the best the platform offers.
 */
function syncDirectory(fs: AtomicWriteFs, path: string): UnsyncedWrite | null {
  let fd: number;
  try {
    fd = fs.openSync(dirname(path), 'r');
  } catch (err) {
    return process.platform === 'win32' ? null : unsynced(path, err);
  }
  // Nothing here may throw: the file is already in place, and a throw would report it refused.
  let failure: unknown = null;
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    failure = err;
  }
  try {
    fs.closeSync(fd);
  } catch (err) {
    failure ??= err;
  }
  return failure === null ? null : unsynced(path, failure);
}

function unsynced(path: string, err: unknown): UnsyncedWrite {
  const e = err as NodeJS.ErrnoException;
  return { path, error: e.code ?? e.message };
}
