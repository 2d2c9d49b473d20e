/**
 * The operator API's JSON answers, written in pieces so that no answer is ever held as one
 * large string. The bytes are JSON.stringify's to the byte.
 *
 * Why: V8 returns a large JSON.stringify result as a rope, and the first read of it (Fastify's
 * Buffer.byteLength for Content-Length, then the socket write) flattens it into one string. Past
 * 128 KiB that string is allocated in V8's large-object space, where flattening took about five
 * times as long per character (a 130K-character rope: 738 µs against 136 µs at 120K, timed
 * alone, 2026-12-05). `cihub pool status` at 50 peers listing 50 models each is 188 KB: about
 * 1 ms of flattening and encoding in a 4.3-5.2 ms answer.
 *
 * So the top levels of an answer (its object or array, and the objects and arrays directly in
 * it) are written member by member, each member by JSON.stringify; a member whose text is still
 * longer than JSON_PIECE_MAX_CHARS is opened a level further. An answer that comes to more than
 * that many characters goes out as a Buffer filled piece by piece; a smaller one as its string.
 */

/** The longest string this writer makes: well under the 128 KiB at which V8 allocates large objects. */
export const JSON_PIECE_MAX_CHARS = 32 * 1024;
/** Levels written member by member before JSON.stringify takes a member whole. */
const SPLIT_LEVELS = 2;

/** The JSON text of `value` (not undefined, a function or a symbol: Fastify serialises none of those). */
export function jsonReply(value: unknown): string | Buffer {
  const pieces: string[] = [];
  write(value, SPLIT_LEVELS, pieces);
  let chars = 0;
  for (const piece of pieces) chars += piece.length;
  return chars <= JSON_PIECE_MAX_CHARS ? pieces.join('') : bytesOf(pieces);
}

/** An array or a plain object (no toJSON of its own): written member by member as JSON.stringify would. */
function opens(value: unknown): value is Record<string, unknown> | unknown[] {
  if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What JSON.stringify leaves out of an object and writes as null in an array. */
function unwritable(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * A member as JSON.stringify reads it: through its toJSON, called with its key, when it has one.
 * (JSON.stringify would not ask the answer's own toJSON again; this writer would, were there
 * one. Nothing the Hub answers with has a toJSON that returns an object with another.)
 */
function memberOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function'
    ? (value as { toJSON(key: string): unknown }).toJSON(key)
    : value;
}

function write(value: unknown, levels: number, pieces: string[]): void {
  if (levels > 0 && opens(value)) {
    writeOpened(value, levels - 1, pieces);
    return;
  }
  const text = JSON.stringify(value);
  // Opened after all: one member alone (a peer listing thousands of models) may be that long.
  if (text.length > JSON_PIECE_MAX_CHARS && opens(value)) writeOpened(value, 0, pieces);
  else pieces.push(text);
}

function writeOpened(value: Record<string, unknown> | unknown[], levels: number, pieces: string[]): void {
  if (Array.isArray(value)) {
    pieces.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) pieces.push(',');
      const item = memberOf(value[i], String(i));
      if (unwritable(item)) pieces.push('null');
      else write(item, levels, pieces);
    }
    pieces.push(']');
    return;
  }
  let separator = '{';
  for (const key of Object.keys(value)) {
    const member = memberOf(value[key], key);
    if (unwritable(member)) continue;
    pieces.push(`${separator}${JSON.stringify(key)}:`);
    separator = ',';
    write(member, levels, pieces);
  }
  pieces.push(separator === '{' ? '{}' : '}');
}

/** The pieces' UTF-8 bytes in one Buffer, joined a group at a time into strings of at most JSON_PIECE_MAX_CHARS. */
function bytesOf(pieces: readonly string[]): Buffer {
  const groups: string[] = [];
  let group: string[] = [];
  let chars = 0;
  for (const piece of pieces) {
    if (chars + piece.length > JSON_PIECE_MAX_CHARS && group.length > 0) {
      groups.push(group.join(''));
      group = [];
      chars = 0;
    }
    group.push(piece);
    chars += piece.length;
  }
  if (group.length > 0) groups.push(group.join(''));
  let bytes = 0;
  for (const g of groups) bytes += Buffer.byteLength(g);
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const g of groups) at += out.write(g, at);
  return out;
}
