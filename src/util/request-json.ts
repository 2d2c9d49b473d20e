/**
 * JSON read from a request, bounded. JSON.parse itself copes with any depth, but the first
 * recursive walk over the result (JSON.stringify, a validator, a log line) overflows the stack
 * on a body nested tens of thousands deep and turns a bad request into a 500 (issue 9, defect
 * 12). So nesting is measured on the raw bytes first, and anything deeper than MAX_JSON_DEPTH
 * is refused before it is parsed.
 */
import { HubError } from '../errors.js';

/** Deepest nesting of objects and arrays a request body may have: far beyond any chat body or tool schema. */
export const MAX_JSON_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The first bytes of each string are read one at a time; past them the scan goes from quote to
 * quote with the native indexOf (see nestsDeeperThan). Keys, roles and tool schemas are short
 * strings and cost no call; a long prompt is skipped at memchr speed.
 */
const STRING_BYTES_READ_ONE_AT_A_TIME = 32;

/**
 * Whether the bytes nest objects and arrays deeper than maxDepth (brackets inside strings do not count).
 *
 * A quote inside a long string is escaped exactly when an odd run of backslashes stands right
 * before it, so the scan only looks at quotes there. A chat body is mostly prompt text: on a
 * 24.6 KB one the check went from 20 to 0.3 µs, and the bodies that are mostly short strings got
 * no slower (4,000 short strings 30-33 -> 26-27 µs, 100 tool schemas 13-14 -> 10-12, code with an
 * escaped quote every 20 bytes 21-22 -> 12; the fastest of 7 rounds, 4 alternated runs each).
 * The string loop is written inline: a call per string made the 4,000-string body 1.5x slower.
 */
export function nestsDeeperThan(raw: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === QUOTE) {
      const start = i + 1;
      const readEnd = Math.min(start + STRING_BYTES_READ_ONE_AT_A_TIME, raw.length);
      let at = start;
      while (at < readEnd && raw[at] !== QUOTE) at += raw[at] === BACKSLASH ? 2 : 1;
      if (at >= readEnd) {
        for (;;) {
          at = raw.indexOf(QUOTE, at);
          if (at < 0) return false; // the string never closes
          let backslashes = 0;
          // The run ends at the string's opening quote at the latest.
          while (raw[at - backslashes - 1] === BACKSLASH) backslashes++;
          if (backslashes % 2 === 0) break;
          at += 1;
        }
      }
      i = at; // the closing quote
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

export interface RequestJsonOptions {
  /**
   * Refuse `__proto__` keys and `constructor.prototype`: on routes whose handlers copy the body
   * into other objects. The proxy only reads a few fields and spreads the rest, which is safe,
   * so it keeps JSON.parse at full speed.
   */
  readonly refusePrototypeKeys?: boolean;
}

/** The parsed body, or a catalogued 400: HUB_ERR_JSON_TOO_DEEP past MAX_JSON_DEPTH, HUB_ERR_INVALID_JSON for anything unreadable. */
export function parseRequestJson(raw: Buffer, opts: RequestJsonOptions = {}): unknown {
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw new HubError('HUB_ERR_JSON_TOO_DEEP', `the request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`);
  }
  try {
    return JSON.parse(raw.toString('utf8'), opts.refusePrototypeKeys ? refusePrototypeKeys : undefined);
  } catch (err) {
    if (err instanceof HubError) throw err;
    throw new HubError('HUB_ERR_INVALID_JSON', `the request body is not valid JSON (${(err as Error).message})`);
  }
}

function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'))) {
    throw new HubError('HUB_ERR_INVALID_JSON', `the request body may not use the key ${key === '__proto__' ? '__proto__' : 'constructor.prototype'}`);
  }
  return value;
}
