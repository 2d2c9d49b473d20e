/**
 * How `cihub logs` shows a log line on a terminal: time, level, message, then the other
 * fields as key=value. Piped, the stored JSON line is printed instead (see commands/logs.ts).
 * The message can quote a peer (a refused pairing logs the peer's reason in it), so its
 * newlines and tabs are written as \n and \t: one stored line stays one printed line.
 */
import type { JsonValue, LogRecord } from '../../logs/log-record.js';
import { oneLine } from '../output.js';
import { clockTime } from './peers.js';

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

function value(v: JsonValue): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

export function renderLogLine(record: LogRecord): string {
  if (record.timeMs === null && record.level === null) return record.line;
  const time = record.timeMs === null ? '-'.padEnd(20) : clockTime(new Date(record.timeMs).toISOString());
  const level = (record.level === null ? '-' : (LEVEL_NAMES[record.level] ?? String(record.level))).padEnd(5);
  const fields = Object.entries(record.fields).map(([k, v]) => `${k}=${value(v)}`);
  return [time, level, oneLine(record.msg), ...fields].filter((part) => part.length > 0).join('  ');
}
