/**
 * One line of the Hub's log file read back: pino's JSON object with its time, level and
 * message pulled out. The file is this Hub's own output, but a line may be cut by a crash or
 * edited by hand, so anything that is not a JSON object is kept as text with no time or level.
 */
import { parseSince as parseInstant } from '../routing-log/since.js';

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface LogRecord {
  /** Epoch ms of the line's `time`; null when it has none (a line that is not pino's). */
  readonly timeMs: number | null;
  /** pino's numeric level (10 trace … 60 fatal); null when the line has none. */
  readonly level: number | null;
  readonly msg: string;
  /** Every other field of the line, service/pid/hostname left out. */
  readonly fields: Readonly<Record<string, JsonValue>>;
  /** The line as stored, without its newline: what `cihub logs` prints when piped. */
  readonly line: string;
}

/** pino's level numbers, by the names `--level` and HUB_LOG_LEVEL take. */
export const LOG_LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/**
 * The pino level a name stands for (any case); null when it names none. Own keys only: a plain
 * lookup also found Object.prototype's members, so `constructor` passed as a level and filtered nothing.
 */
export function levelNamed(name: string): number | null {
  const key = name.toLowerCase();
  return Object.hasOwn(LOG_LEVELS, key) ? LOG_LEVELS[key]! : null;
}

const OMITTED = new Set(['time', 'level', 'msg', 'service', 'pid', 'hostname']);

export function parseLogLine(line: string): LogRecord {
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(line) as JsonValue;
  } catch {
    return { timeMs: null, level: null, msg: line, fields: {}, line };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { timeMs: null, level: null, msg: line, fields: {}, line };
  const obj = parsed as { readonly [key: string]: JsonValue };
  const time = typeof obj.time === 'string' ? Date.parse(obj.time) : typeof obj.time === 'number' ? obj.time : NaN;
  const fields: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(obj)) if (!OMITTED.has(k)) fields[k] = v;
  return {
    timeMs: Number.isFinite(time) ? time : null,
    level: typeof obj.level === 'number' ? obj.level : null,
    msg: typeof obj.msg === 'string' ? obj.msg : '',
    fields,
    line,
  };
}

export interface LogFilter {
  /** Only lines at or after this epoch ms; null = all. */
  readonly sinceMs: number | null;
  /** Only lines at or above this pino level; null = all. */
  readonly minLevel: number | null;
}

/** A line without a time or level is dropped by a filter on it: it cannot be shown to pass. */
export function keepRecord(record: LogRecord, filter: LogFilter): boolean {
  if (filter.sinceMs !== null && (record.timeMs === null || record.timeMs < filter.sinceMs)) return false;
  if (filter.minLevel !== null && (record.level === null || record.level < filter.minLevel)) return false;
  return true;
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An age such as 30s, 10m, 2h or 1d, in ms; null when the text is not one. */
export function parseAgeMs(text: string): number | null {
  const age = /^(\d{1,6})([smhd])$/.exec(text.trim());
  return age ? Number(age[1]) * UNIT_MS[age[2]!]! : null;
}

/**
 * `--since`: an ISO time with a zone, or an age such as 30s, 10m, 2h, 1d; null when it is neither.
 * The time is read by the routing log's parser, so both --since flags take the same instants:
 * Date.parse alone took 30 February as 2 March and a space for the T.
 */
export function parseSince(text: string, nowMs: number): number | null {
  const ageMs = parseAgeMs(text);
  if (ageMs !== null) return nowMs - ageMs;
  const instant = parseInstant(text.trim());
  return instant.ok ? instant.ms : null;
}
