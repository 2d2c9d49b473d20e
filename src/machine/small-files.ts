/**
 * The machine readers' one seam onto the filesystem: small text files (sysfs counters, the
 * pressure host file) read with a byte bound, and directory listings. Every outcome is a
 * record, never a throw, and "absent" is kept apart from "could not read": a missing
 * /proc/driver/nvidia means no NVIDIA driver, while one that cannot be read means this Hub
 * cannot tell.
 *
 * Tests point the readers at a temporary directory laid out like /sys; nothing here knows a
 * real path.
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';

/** sysfs counters are a line; the host file is one small JSON object. Anything longer is not one of them. */
export const SMALL_FILE_MAX_BYTES = 4096;

export type FileRead =
  | { readonly kind: 'ok'; readonly text: string; /** The file's mtime, ms since the epoch. */ readonly modifiedAtMs: number }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unreadable'; readonly code: string };
export type DirRead =
  { readonly kind: 'ok'; readonly names: readonly string[] } | { readonly kind: 'absent' } | { readonly kind: 'unreadable'; readonly code: string };

const ABSENT_CODES = new Set(['ENOENT', 'ENOTDIR']);

function failure(err: unknown): { readonly kind: 'absent' } | { readonly kind: 'unreadable'; readonly code: string } {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? 'EUNKNOWN';
  return ABSENT_CODES.has(code) ? { kind: 'absent' } : { kind: 'unreadable', code };
}

/**
 * The first SMALL_FILE_MAX_BYTES of a file as UTF-8 text (a longer file is refused as unreadable).
 * Only a regular file is read. Opened without O_NONBLOCK, a named pipe at the host file's path
 * held the open until something wrote to it, so the sampler's tick (and the libuv thread under
 * it) waited for good; a device such as /dev/zero is no counter either.
 */
export async function readSmallFile(path: string): Promise<FileRead> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return failure(err);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { kind: 'unreadable', code: 'ENOTREG' };
    const buffer = Buffer.alloc(SMALL_FILE_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > SMALL_FILE_MAX_BYTES) return { kind: 'unreadable', code: 'ETOOBIG' };
    return { kind: 'ok', text: buffer.subarray(0, bytesRead).toString('utf8'), modifiedAtMs: stat.mtimeMs };
  } catch (err) {
    return failure(err);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The names in a directory, sorted so every reader walks cards in the same order. */
export async function listDir(path: string): Promise<DirRead> {
  try {
    return { kind: 'ok', names: (await readdir(path)).sort() };
  } catch (err) {
    return failure(err);
  }
}
