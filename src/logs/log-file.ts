/**
 * The Hub's log on disk: `<data dir>/logs/hub.log`, rotated by size into hub.log.1 (newest) …
 * hub.log.<LOG_FILES_KEPT - 1> (oldest), each file owner-only (0600), so an operator can read
 * what happened with `cihub logs` after the terminal that ran `cihub serve` is gone.
 *
 * A small destination of our own rather than pino-roll: pino-roll runs as a worker-thread
 * transport, so the lines written just before `process.exit` on SIGTERM can be lost, and it
 * does not let us set the file mode; this one writes synchronously (as pino's own stdout
 * destination does), opens every file 0600, and keeps the naming `cihub logs` reads.
 */
import { closeSync, existsSync, fchmodSync, fstatSync, ftruncateSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOG_DIR = 'logs';
export const LOG_FILE = 'hub.log';
/** A file is rotated before a line would take it past 10 MiB. */
export const LOG_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** hub.log and four rotated files: at most about 50 MiB of log in the data dir. */
export const LOG_FILES_KEPT = 5;

export function logDir(dataDir: string): string {
  return join(dataDir, LOG_DIR);
}

/** The log files, oldest first (hub.log.4 … hub.log.1, hub.log); only those that exist. */
export function logFilesOldestFirst(dataDir: string, kept = LOG_FILES_KEPT): string[] {
  const dir = logDir(dataDir);
  const paths = [];
  for (let n = kept - 1; n >= 1; n -= 1) paths.push(join(dir, `${LOG_FILE}.${n}`));
  paths.push(join(dir, LOG_FILE));
  return paths.filter((p) => existsSync(p));
}

export interface RotatingLogFileOptions {
  readonly maxBytes?: number;
  readonly kept?: number;
  /** Where a failed write is reported (once per failure streak); the Hub keeps running either way. */
  readonly onError?: (err: Error) => void;
  /** The one call that puts bytes in the file; node:fs's writeSync unless a test injects a disk that fills. */
  readonly writeSync?: (fd: number, data: string | Uint8Array) => number;
}

/** A pino destination: appends each line to hub.log, rotating by size. */
export class RotatingLogFile {
  readonly path: string;
  readonly #dir: string;
  readonly #maxBytes: number;
  readonly #kept: number;
  readonly #onError: (err: Error) => void;
  readonly #writeSync: (fd: number, data: string | Uint8Array) => number;
  #fd: number | null = null;
  #size = 0;
  #failing = false;

  constructor(dataDir: string, opts: RotatingLogFileOptions = {}) {
    this.#dir = logDir(dataDir);
    this.path = join(this.#dir, LOG_FILE);
    this.#maxBytes = opts.maxBytes ?? LOG_FILE_MAX_BYTES;
    this.#kept = Math.max(1, opts.kept ?? LOG_FILES_KEPT);
    this.#onError =
      opts.onError ?? ((err) => process.stderr.write(`cihub: the log file cannot be written (${err.message}); logging to stdout only until it can\n`));
    this.#writeSync = opts.writeSync ?? ((fd, data) => (typeof data === 'string' ? writeSync(fd, data) : writeSync(fd, data)));
  }

  write(line: string): boolean {
    let written = 0;
    try {
      const bytes = Buffer.byteLength(line);
      if (this.#fd === null) this.#open();
      if (this.#size > 0 && this.#size + bytes > this.#maxBytes) this.#rotate();
      written = this.#writeSync(this.#fd!, line);
      // A disk that fills mid-line takes only its first bytes (a short write), and refuses the rest
      // on the next call. Taken as done, that left half a line, and the first line written once
      // there was room again ran on from it: one line that is no JSON, its record lost to
      // `cihub logs` (seen on a full tmpfs).
      if (written < bytes) {
        const rest = Buffer.from(line).subarray(written);
        for (let at = 0; at < rest.length;) {
          const taken = this.#writeSync(this.#fd!, rest.subarray(at));
          // A write that takes nothing and says no error would spin here forever; count it as refused.
          if (taken === 0) throw new Error(`the disk took none of the last ${rest.length - at} bytes of a log line`);
          at += taken;
        }
      }
      this.#size += bytes;
      this.#failing = false;
    } catch (err) {
      if (written > 0) this.#cutBack();
      // A full disk or a removed directory must not take the Hub down: the line still went to
      // stdout, and the next write tries again (reopening the file).
      if (!this.#failing) this.#onError(err as Error);
      this.#failing = true;
      this.#closeFd();
    }
    return true;
  }

  close(): void {
    this.#closeFd();
  }

  #open(): void {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const fd = openSync(this.path, 'a', 0o600);
    // The mode given to open applies only to a file it creates; one left by a looser umask is tightened.
    fchmodSync(fd, 0o600);
    this.#fd = fd;
    this.#size = fstatSync(fd).size;
  }

  #rotate(): void {
    this.#closeFd();
    const name = (n: number) => join(this.#dir, n === 0 ? LOG_FILE : `${LOG_FILE}.${n}`);
    if (this.#kept === 1) rmSync(name(0), { force: true });
    else {
      rmSync(name(this.#kept - 1), { force: true });
      for (let n = this.#kept - 2; n >= 0; n -= 1) if (existsSync(name(n))) renameSync(name(n), name(n + 1));
    }
    this.#open();
  }

  /** Removes the part of a line a failed write left, so the file ends with a whole line; best effort, the disk may refuse this too. */
  #cutBack(): void {
    try {
      ftruncateSync(this.#fd!, this.#size);
    } catch {
      // The half line stays: the reader keeps a line that is no JSON as text, the rest is unharmed.
    }
  }

  #closeFd(): void {
    if (this.#fd === null) return;
    try {
      closeSync(this.#fd);
    } catch {
      // Already closed by the failure that brought us here.
    }
    this.#fd = null;
  }
}
