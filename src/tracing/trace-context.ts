/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): reading the `traceparent` and
 * `tracestate` an app sent, and writing the ones the Hub sends on. Pure. A header that does not
 * parse is ignored, as the recommendation asks of a receiver: the request goes on untraced,
 * never refused.
 */
import { randomBytes } from 'node:crypto';

/** What one valid traceparent says. */
export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span: 16 lower-case hex digits, not all zero. */
  readonly parentId: string;
  /** The caller's sampled flag (bit 0 of trace-flags). */
  readonly sampled: boolean;
}

/** The trace headers a request arrived with, as strings or repeated headers, unvalidated. */
export interface IncomingTraceHeaders {
  readonly traceparent?: string | readonly string[] | undefined;
  readonly tracestate?: string | readonly string[] | undefined;
}

/** A trace the request belongs to, and the vendor state that rides along with it. */
export interface IncomingTrace {
  readonly parent: TraceParent;
  /**
   * traceparent as received, trimmed: what a Hub taking no part in the trace passes on. Rebuilt
   * from `parent` it lost a later version's fields and every flag but sampled (the random-trace-id
   * flag of level 2 among them; tracing audit, 2026-12-07).
   */
  readonly header: string;
  /** tracestate as received (repeated headers joined with a comma); null when absent or unusable. */
  readonly state: string | null;
}

/** Version 00: exactly this long. A later version may append fields after a dash, which are ignored. */
const VERSION_00_LENGTH = 55;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
/**
 * The recommendation asks a vendor to pass on at least 512 characters of tracestate; a longer one
 * is cut to fit by whole members, as it asks (§3.3.1.5): members over 128 characters go first,
 * then members from the end.
 */
export const MAX_TRACESTATE_CHARS = 512;
/** A tracestate list holds at most 32 members (§3.3.1.1); past that the ones on the right go. */
export const MAX_TRACESTATE_MEMBERS = 32;
/** A member longer than this is the first to go when tracestate must be cut. */
const LONG_TRACESTATE_MEMBER_CHARS = 128;
/** tracestate is a list of key=value members in printable ASCII. */
const TRACESTATE = /^[\x20-\x7e]*$/;

export function parseTraceParent(raw: string | readonly string[] | undefined): TraceParent | null {
  // Two traceparent headers cannot both be the parent: neither is believed.
  if (typeof raw !== 'string') return null;
  const value = raw.trim();
  const m = TRACEPARENT.exec(value);
  if (m === null) return null;
  const [, version, traceId, parentId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff') return null;
  if (version === '00' && (value.length !== VERSION_00_LENGTH || rest !== undefined)) return null;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(parentId)) return null;
  return { traceId, parentId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The trace an incoming request carries; null when its traceparent is absent or invalid (tracestate then means nothing). */
export function readIncomingTrace(headers: IncomingTraceHeaders): IncomingTrace | null {
  const parent = parseTraceParent(headers.traceparent);
  if (parent === null) return null;
  const rawState = typeof headers.tracestate === 'string' ? headers.tracestate : Array.isArray(headers.tracestate) ? headers.tracestate.join(',') : null;
  // parseTraceParent believed it only as one string.
  const header = (headers.traceparent as string).trim();
  return { parent, header, state: rawState !== null && TRACESTATE.test(rawState) ? boundedTracestate(rawState) : null };
}

/**
 * tracestate within MAX_TRACESTATE_MEMBERS and MAX_TRACESTATE_CHARS, cut by whole members when
 * over either; null when nothing is left.
 */
function boundedTracestate(raw: string): string | null {
  const state = raw.trim();
  if (state.length <= MAX_TRACESTATE_CHARS && commas(state) < MAX_TRACESTATE_MEMBERS) return state === '' ? null : state;
  const members = state
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '')
    .slice(0, MAX_TRACESTATE_MEMBERS);
  let length = members.reduce((sum, m) => sum + m.length, 0) + members.length - 1;
  const drop = (at: number): void => {
    length -= members[at]!.length + (members.length > 1 ? 1 : 0);
    members.splice(at, 1);
  };
  for (let i = members.length - 1; i >= 0 && length > MAX_TRACESTATE_CHARS; i--) if (members[i]!.length > LONG_TRACESTATE_MEMBER_CHARS) drop(i);
  while (length > MAX_TRACESTATE_CHARS) drop(members.length - 1);
  return members.length === 0 ? null : members.join(',');
}

function commas(s: string): number {
  let n = 0;
  for (let at = s.indexOf(','); at !== -1; at = s.indexOf(',', at + 1)) n++;
  return n;
}

/** A traceparent header value (version 00) naming `spanId` as the parent of whatever is called next. */
export function formatTraceParent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/** Where new trace and span ids come from; tests hand in fixed ones. */
export interface TraceIds {
  traceId(): string;
  spanId(): string;
}

export const randomTraceIds: TraceIds = {
  traceId: () => nonZeroHex(16),
  spanId: () => nonZeroHex(8),
};

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!ALL_ZERO.test(hex)) return hex;
  }
}
