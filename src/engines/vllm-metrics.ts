/**
 * vLLM's queue from its Prometheus /metrics text: the gauges vllm:num_requests_running and
 * vllm:num_requests_waiting (and vllm:num_requests_swapped, which builds before the V1 engine
 * report: preempted requests parked on the CPU, waiting to resume). Each is labelled by
 * model_name (and on V1 by engine, one series per data-parallel engine), so one figure is the
 * sum of its series: the Hub counts one engine endpoint as one backend.
 *
 * The text is untrusted and can be large (every histogram bucket of every model is a line), so
 * this reads it line by line with plain string operations and keeps nothing but the three sums.
 * A line it cannot read is skipped, never fatal; nothing here throws.
 */
import { MAX_REPORTED_REQUESTS } from './engine-queue.js';

const RUNNING = 'vllm:num_requests_running';
const WAITING = 'vllm:num_requests_waiting';
const SWAPPED = 'vllm:num_requests_swapped';
const GAUGE_PREFIX = 'vllm:num_requests_';

export interface VllmQueue {
  /** Sum of the num_requests_running series; null when no readable series was present. */
  readonly running: number | null;
  /** Sum of the num_requests_waiting (and num_requests_swapped) series; null when no readable series was present. */
  readonly waiting: number | null;
}

/**
 * The queue vLLM reports, or null when the text holds neither gauge (not vLLM, metrics off, or
 * garbage). A line with no newline after it is left out: the format ends every line with one,
 * so an unterminated last line is a cut answer whose value may be missing digits.
 */
export function parseVllmQueue(text: string): VllmQueue | null {
  const sums = new Map<string, number>();
  const end = text.lastIndexOf('\n');
  let start = 0;
  while (start <= end) {
    // Always found: start <= end, and end is a newline.
    const stop = text.indexOf('\n', start);
    // Most lines are other metrics' (histogram buckets above all): only these are cut out and read.
    const line = text.startsWith(GAUGE_PREFIX, start) ? text.slice(start, stop) : null;
    start = stop + 1;
    if (line === null) continue;
    const sample = readSample(line);
    if (sample === null) continue;
    sums.set(sample.name, (sums.get(sample.name) ?? 0) + sample.value);
  }
  const running = believable(sums.get(RUNNING));
  const waitingParts = [sums.get(WAITING), sums.get(SWAPPED)].filter((v): v is number => v !== undefined);
  const waiting = waitingParts.length === 0 ? null : believable(waitingParts.reduce((a, b) => a + b, 0));
  if (running === null && waiting === null) return null;
  return { running, waiting };
}

/** A sum past the bound is not a queue any engine holds: read as not reported. */
function believable(sum: number | undefined): number | null {
  if (sum === undefined || sum > MAX_REPORTED_REQUESTS) return null;
  return Math.round(sum);
}

/**
 * A sample value as the exposition format writes a finite number: decimal with an optional
 * exponent. `Number()` alone would also take 0x10, 0b11 and 0o7, which Prometheus's own parser
 * refuses; NaN and ±Inf are not counts, so they are left out too.
 */
const DECIMAL_VALUE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** One sample of a gauge this reader wants: `name{labels} value [timestamp]`; null for anything else. */
function readSample(line: string): { name: string; value: number } | null {
  const name = [RUNNING, WAITING, SWAPPED].find((n) => line.startsWith(n));
  if (name === undefined) return null;
  let i = name.length;
  const next = line[i];
  if (next === '{') {
    i = skipLabels(line, i);
    if (i === -1) return null;
  } else if (next !== ' ' && next !== '\t') {
    // Another metric whose name only starts like this one (e.g. ..._waiting_by_reason).
    return null;
  }
  const fields = line
    .slice(i)
    .trim()
    .split(/[ \t]+/);
  const text = fields[0];
  if (fields.length > 2 || text === undefined || !DECIMAL_VALUE.test(text)) return null;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) return null;
  return { name, value };
}

/** The index just past the label set that opens at `open`, honouring quoted values and their escapes; -1 when it never closes. */
function skipLabels(line: string, open: number): number {
  let quoted = false;
  for (let i = open + 1; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '}') return i + 1;
  }
  return -1;
}
