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
 */
import * as nodeFs from 'node:fs';
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

/** Writes `data` to `path` so that after a crash or power cut the file is either the old one or all of the new one. */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
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
  syncDirectory(fs, dirname(path));
}

function unlinkQuietly(fs: AtomicWriteFs, path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * Makes the directory entry durable. Windows cannot open a directory for fsync (EISDIR/EPERM);
 * there the rename is as durable as NTFS makes it, which is the best the platform offers.
 */
function syncDirectory(fs: AtomicWriteFs, dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch (err) {
    if (process.platform === 'win32') return;
    throw err;
  }
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
