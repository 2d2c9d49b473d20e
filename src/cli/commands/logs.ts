/**
 * `cihub logs [-f] [--since T] [--level L]`: the Hub's log file (src/logs/log-file.ts), oldest
 * line first across the rotated files. On a terminal each line is shown as time, level,
 * message and fields; piped, the stored JSON lines are passed through unchanged, so
 * `cihub logs | jq` works. -f keeps printing what the Hub writes until Ctrl-C.
 * Reads the file directly: it needs no running Hub (a Hub that stopped is when it is wanted).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OPERATOR_KEY_FILE } from '../../config/data-dir.js';
import { LOG_FILE, logDir, logFilesOldestFirst } from '../../logs/log-file.js';
import { keepRecord, levelNamed, LOG_LEVELS, parseLogLine, parseSince, type LogFilter } from '../../logs/log-record.js';
import { LogTail } from '../../logs/log-tail.js';
import { CliError, UsageError } from '../hub-client.js';
import { sinceRefusalOf } from '../since-flag.js';
import { renderLogLine } from '../render/log-line.js';

/** How often -f looks for new lines. */
const FOLLOW_POLL_MS = 250;

export interface LogsOptions {
  readonly dataDir: string;
  readonly follow: boolean;
  readonly since?: string | undefined;
  readonly level?: string | undefined;
  /** Pretty lines (a terminal) or the stored JSON lines (a pipe). */
  readonly pretty: boolean;
  readonly nowMs: number;
  readonly write: (text: string) => void;
  /** Resolves when -f should stop (Ctrl-C). */
  readonly stopped: Promise<void>;
}

export function logFilter(opts: Pick<LogsOptions, 'since' | 'level' | 'nowMs'>): LogFilter {
  let sinceMs: number | null = null;
  if (opts.since !== undefined) {
    sinceMs = parseSince(opts.since, opts.nowMs);
    if (sinceMs === null) throw new UsageError(sinceRefusalOf(opts.since));
  }
  let minLevel: number | null = null;
  if (opts.level !== undefined) {
    minLevel = levelNamed(opts.level);
    if (minLevel === null) throw new UsageError(`--level takes one of ${Object.keys(LOG_LEVELS).join(', ')}, not ${JSON.stringify(opts.level.slice(0, 40))}.`);
  }
  return { sinceMs, minLevel };
}

export async function logs(opts: LogsOptions): Promise<void> {
  const filter = logFilter(opts);
  const show = (lines: readonly string[]) => {
    const out = lines
      .map(parseLogLine)
      .filter((r) => keepRecord(r, filter))
      .map((r) => `${opts.pretty ? renderLogLine(r) : r.line}\n`)
      .join('');
    if (out.length > 0) opts.write(out);
  };
  const current = join(logDir(opts.dataDir), LOG_FILE);
  const files = logFilesOldestFirst(opts.dataDir);
  if (files.length === 0 && !opts.follow) {
    // The operator key is made by the first Hub to run with a data dir: its presence means a Hub
    // ran here, so the data dir is right and the level is what kept the log empty.
    if (existsSync(join(opts.dataDir, OPERATOR_KEY_FILE)))
      throw new CliError(
        `No log at ${current} yet: a Hub has run with this data dir but logged nothing, which is what HUB_LOG_LEVEL=silent gives (and error or fatal, until something fails); start it at info for a log.`,
      );
    throw new CliError(`No log at ${current} yet: a Hub writes it once it runs with this data dir (cihub serve), so check --data-dir.`);
  }
  // The current file is read up to its last complete line, and -f starts exactly there.
  let start = 0;
  for (const file of files) {
    let bytes = readFileSync(file);
    if (file === current) {
      start = bytes.lastIndexOf(0x0a) + 1;
      bytes = bytes.subarray(0, start);
    }
    show(
      bytes
        .toString('utf8')
        .split('\n')
        .filter((l) => l.length > 0),
    );
  }
  if (!opts.follow) return;
  const tail = new LogTail(current, start);
  let stop = false;
  void opts.stopped.then(() => (stop = true));
  try {
    while (!stop) {
      show(tail.read());
      await Promise.race([sleep(FOLLOW_POLL_MS), opts.stopped]);
    }
  } finally {
    tail.close();
  }
}
