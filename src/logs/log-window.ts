/**
 * A window on the Hub's log file for the dashboard's Logs view (GET /api/hub/logs): the newest
 * lines that pass a filter, and then, for following, the lines written after a cursor. The
 * same files, line parser and filter as `cihub logs`; unlike the CLI it is read inside the
 * running Hub, so every read is bounded in bytes (the event loop also carries the proxy) and
 * keeps no descriptor open between calls.
 *
 * A cursor names a file by its inode and a byte offset in it. Rotation renames hub.log to
 * hub.log.1 without changing its inode, so a cursor taken on hub.log is still found after a
 * rotation, and following finishes that file before moving to the new hub.log. A deleted
 * file's inode can be given to a new one, so the cursor also carries a hash of its file's first
 * line, which a file keeps for its life.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { logFilesOldestFirst, LOG_FILES_KEPT } from './log-file.js';
import { keepRecord, parseLogLine, type JsonValue, type LogFilter, type LogRecord } from './log-record.js';

/** One read looks at no more than this many bytes of log (about 20,000 lines); a follow read that stops here says so with `more`. */
export const LOG_WINDOW_SCAN_BYTES = 4 * 1024 * 1024;
/** The first look back from the end of a file; widened fourfold until enough lines match. */
const FIRST_LOOK_BYTES = 64 * 1024;
/** A line longer than this is returned with its message cut and its fields left out. */
export const LOG_ENTRY_MAX_CHARS = 8 * 1024;

/** One log line as the API returns it. */
export interface LogEntry {
  /** ISO time of the line; null when the line has none (not pino's). */
  readonly time: string | null;
  /** pino's level number; null when the line has none. */
  readonly level: number | null;
  readonly msg: string;
  /** The line's other fields (service, pid and hostname left out); empty when `cut`. */
  readonly fields: Readonly<Record<string, JsonValue>>;
  /** The stored line was longer than LOG_ENTRY_MAX_CHARS: `msg` is cut and `fields` left out. */
  readonly cut: boolean;
}

export interface LogCursor {
  /** The file's inode, as decimal text (inodes can exceed 2^53). */
  readonly ino: string;
  /** The file's first line, hashed (HEAD_HASH_CHARS hex); `0` while it has no complete line. */
  readonly head: string;
  readonly offset: number;
}

const HEAD_HASH_CHARS = 12;
/** The first line is hashed up to this many bytes. */
const HEAD_BYTES = 256;

export interface LogWindow {
  /** Matching lines, oldest first. */
  readonly entries: readonly LogEntry[];
  /** Where the next follow read starts; null while no log file exists. */
  readonly cursor: LogCursor | null;
  /** A follow read stopped at `limit` or the byte budget before the end: ask again at once with `cursor`. */
  readonly more: boolean;
  /**
   * Looking back, the byte budget ended the scan before `limit` lines matched, so older
   * matching lines may exist in the files. False when the files were read back to their start.
   */
  readonly olderNotScanned: boolean;
  /** The cursor's file was gone (rotated out, or truncated): lines between it and this read may be missing. */
  readonly gap: boolean;
}

export interface LogWindowQuery {
  readonly filter: LogFilter;
  readonly limit: number;
  /** Follow from here; null for the newest `limit` matching lines. */
  readonly after: LogCursor | null;
  readonly scanBytes?: number;
}

interface LogFileAt {
  readonly path: string;
  readonly ino: string;
  readonly head: string;
  /** Bytes up to and including the last newline: a line still being written is not read. */
  readonly end: number;
}

const CURSOR_TEXT = /^(\d{1,20})-(0|[0-9a-f]{12})-(\d{1,15})$/;

export function formatCursor(c: LogCursor): string {
  return `${c.ino}-${c.head}-${c.offset}`;
}

/** A cursor as the API takes it back; null when the text is not one. */
export function parseCursor(text: string): LogCursor | null {
  const m = CURSOR_TEXT.exec(text);
  if (m === null) return null;
  const offset = Number(m[3]);
  return Number.isSafeInteger(offset) ? { ino: m[1]!, head: m[2]!, offset } : null;
}

function headOf(fd: number, end: number): string {
  const first = readRange(fd, 0, Math.min(end, HEAD_BYTES));
  const nl = first.indexOf(0x0a);
  if (end === 0) return '0';
  return createHash('sha256')
    .update(nl < 0 ? first : first.subarray(0, nl + 1))
    .digest('hex')
    .slice(0, HEAD_HASH_CHARS);
}

export function toEntry(r: LogRecord): LogEntry {
  const cut = r.line.length > LOG_ENTRY_MAX_CHARS;
  return {
    time: r.timeMs === null ? null : new Date(r.timeMs).toISOString(),
    level: r.level,
    msg: cut ? `${r.msg.slice(0, LOG_ENTRY_MAX_CHARS)}…` : r.msg,
    fields: cut ? {} : r.fields,
    cut,
  };
}

function readRange(fd: number, start: number, end: number): Buffer {
  const buf = Buffer.alloc(end - start);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** Complete lines of bytes [start, end): a line cut by `start` is dropped; `end` is a line boundary. */
function linesIn(bytes: Buffer, startsAtLine: boolean): { text: string; endOffset: number }[] {
  const lines: { text: string; endOffset: number }[] = [];
  let from = 0;
  if (!startsAtLine) {
    const nl = bytes.indexOf(0x0a);
    if (nl < 0) return lines;
    from = nl + 1;
  }
  for (;;) {
    const nl = bytes.indexOf(0x0a, from);
    if (nl < 0) break;
    if (nl > from) lines.push({ text: bytes.toString('utf8', from, nl), endOffset: nl + 1 });
    from = nl + 1;
  }
  return lines;
}

function withOpen<T>(path: string, read: (fd: number) => T): T | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null; // rotated away between listing and opening
  }
  try {
    return read(fd);
  } finally {
    closeSync(fd);
  }
}

/** The log files, oldest first, each with its inode and the end of its last complete line. */
function filesAt(dataDir: string): LogFileAt[] {
  const files: LogFileAt[] = [];
  for (const path of logFilesOldestFirst(dataDir, LOG_FILES_KEPT)) {
    const at = withOpen(path, (fd) => {
      const size = fstatSync(fd).size;
      const ino = fstatSync(fd, { bigint: true }).ino.toString();
      // The last newline: look back in growing steps (a line is rarely longer than 64 KiB).
      let look = Math.min(size, FIRST_LOOK_BYTES);
      for (;;) {
        const tail = readRange(fd, size - look, size);
        const nl = tail.lastIndexOf(0x0a);
        if (nl >= 0) {
          const end = size - look + nl + 1;
          return { path, ino, head: headOf(fd, end), end };
        }
        if (look === size || look >= LOG_WINDOW_SCAN_BYTES) return { path, ino, head: '0', end: 0 };
        look = Math.min(size, look * 4);
      }
    });
    if (at !== null) files.push(at);
  }
  return files;
}

/** The newest `limit` matching lines, looking back from the end of hub.log through the rotated files. */
function newest(files: readonly LogFileAt[], q: LogWindowQuery): Omit<LogWindow, 'gap'> {
  const budget = q.scanBytes ?? LOG_WINDOW_SCAN_BYTES;
  const newestFirst: LogEntry[] = [];
  let spent = 0;
  let cutShort = false;
  for (let i = files.length - 1; i >= 0 && newestFirst.length < q.limit; i -= 1) {
    const file = files[i]!;
    const allowed = budget - spent;
    if (allowed <= 0) {
      cutShort = file.end > 0 || i > 0;
      break;
    }
    const found = withOpen(file.path, (fd) => {
      let look = Math.min(file.end, FIRST_LOOK_BYTES, allowed);
      for (;;) {
        const start = file.end - look;
        const records = linesIn(readRange(fd, start, file.end), start === 0).map((l) => parseLogLine(l.text));
        const matching = records.filter((r) => keepRecord(r, q.filter));
        const wanted = q.limit - newestFirst.length;
        const widest = look === file.end || look === allowed;
        if (matching.length >= wanted || widest) return { matching: matching.slice(-wanted).reverse(), look, whole: start === 0 };
        look = Math.min(file.end, allowed, look * 4);
      }
    });
    if (found === null) continue;
    spent += found.look;
    newestFirst.push(...found.matching.map(toEntry));
    if (!found.whole && newestFirst.length < q.limit) {
      cutShort = true;
      break;
    }
  }
  const current = files.at(-1);
  return {
    entries: newestFirst.reverse(),
    cursor: current === undefined ? null : { ino: current.ino, head: current.head, offset: current.end },
    more: false,
    olderNotScanned: cutShort,
  };
}

/** Lines after the cursor, oldest first, up to `limit` matches or the byte budget. */
function after(files: readonly LogFileAt[], from: { index: number; offset: number }, q: LogWindowQuery): Omit<LogWindow, 'gap'> {
  const budget = q.scanBytes ?? LOG_WINDOW_SCAN_BYTES;
  const entries: LogEntry[] = [];
  const at = (file: LogFileAt, offset: number): LogCursor => ({ ino: file.ino, head: file.head, offset });
  let cursor = at(files[from.index]!, from.offset);
  let spent = 0;
  for (let i = from.index; i < files.length; i += 1) {
    const file = files[i]!;
    const start = i === from.index ? from.offset : 0;
    const stop = Math.min(file.end, start + (budget - spent));
    const lines = withOpen(file.path, (fd) => linesIn(readRange(fd, start, stop), true)) ?? [];
    spent += stop - start;
    cursor = at(file, start);
    for (const line of lines) {
      const record = parseLogLine(line.text);
      cursor = at(file, start + line.endOffset);
      if (keepRecord(record, q.filter)) entries.push(toEntry(record));
      if (entries.length >= q.limit) return { entries, cursor, more: cursor.offset < file.end || i < files.length - 1, olderNotScanned: false };
    }
    if (stop < file.end) return { entries, cursor, more: true, olderNotScanned: false };
    cursor = at(file, file.end);
  }
  return { entries, cursor, more: false, olderNotScanned: false };
}

/** Reads the window the query asks for. Never throws for a missing or rotating file. */
export function readLogWindow(dataDir: string, q: LogWindowQuery): LogWindow {
  const files = filesAt(dataDir);
  if (q.after === null) return { ...newest(files, q), gap: false };
  // A cursor at offset 0 was taken before its file had a line, so its head could not be known then.
  const index = files.findIndex((f) => f.ino === q.after!.ino && (f.head === q.after!.head || q.after!.offset === 0));
  const file = index < 0 ? undefined : files[index];
  if (file === undefined || q.after.offset > file.end) return { ...newest(files, q), gap: true };
  return { ...after(files, { index, offset: q.after.offset }, q), gap: false };
}
