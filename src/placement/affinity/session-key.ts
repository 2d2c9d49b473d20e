/**
 * The session key prefix affinity remembers placements under (spec, "Prefix affinity", The
 * key). An app that knows its session names it with X-Hub-Pool-Session; otherwise the proxy
 * digests the head of the prompt, which stays byte-identical across every call of one session
 * however long the conversation grows. The model is part of both forms, since a prompt cache
 * belongs to one loaded model.
 *
 * The whole head is digested, never a window of it: a build that read only the first 4 KB
 * gave six sessions sharing a 25k-token system prompt one key, and herded them onto one node
 * (core-2, 2026-09-21). The key itself is an opaque digest and goes nowhere but the in-memory
 * affinity table: never into a log line or a routing-log row.
 */
import * as crypto from 'node:crypto';

/** The request header an app names its session with. */
export const SESSION_HEADER = 'x-hub-pool-session';

/** 1-128 characters of letters, digits and . _ : @ / + = -, starting alphanumeric; anything else is ignored. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,127}$/;

/** Where a key came from, as the routing-log row names it. */
export type SessionKeySource = 'header' | 'hashed';

export interface SessionKey {
  /** A SHA-256 hex digest; never logged. */
  readonly key: string;
  readonly source: SessionKeySource;
}

/** The header's value when it is a valid session id; null when absent, repeated or malformed. */
export function validSessionHeader(value: string | readonly string[] | undefined): string | null {
  return typeof value === 'string' && SESSION_ID_PATTERN.test(value) ? value : null;
}

/**
 * The key for one request, or null when the body has no head to digest (no messages, no
 * prompt): such a request gets no affinity rather than sharing one empty key with every other.
 * `digest` takes the key text in parts (keyParts) and gives the SHA-256 hex of their
 * concatenation; PrefixAffinity passes its DigestMemo's, which gives the same hex.
 */
export function sessionKey(
  model: string,
  sessionHeader: string | null,
  body: Readonly<Record<string, unknown>>,
  digest: (parts: readonly string[]) => string = sha256OfParts,
): SessionKey | null {
  if (sessionHeader !== null) return { key: digest(keyParts(['header', model, sessionHeader])), source: 'header' };
  const head = headOf(body);
  return head === null ? null : { key: digest(keyParts(['hashed', model, head])), source: 'hashed' };
}

/**
 * The head of the prompt as JSON text: for a chat body, the leading system message(s) and the
 * first message after them, whole; for a completion or generate body, its system and prompt
 * fields, whole (they have no turn structure to stop at). null when there is none. The key
 * digests the same head, written as keyParts writes it (two heads get one key exactly when
 * their JSON texts are equal).
 */
export function promptHead(body: Readonly<Record<string, unknown>>): string | null {
  const head = headOf(body);
  return head === null ? null : JSON.stringify(head);
}

/** The head's values (see promptHead); null when there is none. */
function headOf(body: Readonly<Record<string, unknown>>): readonly unknown[] | null {
  if (Array.isArray(body.messages)) {
    const messages: readonly unknown[] = body.messages;
    let end = 0;
    while (end < messages.length && isSystem(messages[end])) end += 1;
    const head = messages.slice(0, Math.min(messages.length, end + 1));
    return head.length === 0 ? null : head;
  }
  const system = body.system ?? null;
  const prompt = body.prompt ?? null;
  if (system === null && prompt === null) return null;
  return [system, prompt];
}

function isSystem(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { role?: unknown }).role === 'system';
}

/**
 * A JSON value (as JSON.parse returns it) as text that no other value writes the same, in parts
 * whose concatenation is that text: every string is prefixed with its length and every array and
 * object with its count, keys in the order JSON.stringify takes them, numbers as JSON.stringify
 * writes them. So two values get one text exactly when their JSON texts are equal, and the key
 * names the same sessions it named when it digested JSON.stringify(head).
 *
 * Why not JSON.stringify: it scans every character of the prompt for escapes, and that scan was
 * most of the key's cost on a long prompt (a 24.6 KB chat body: 31 µs of JSON.stringify before
 * a 17-20 µs SHA-256; the key 57 -> 20 µs, timed alone, 2026-12-02). A string goes in as it
 * is, so the hash reads it as UTF-8: a string with a lone surrogate, which UTF-8 cannot carry
 * (it would read as U+FFFD), is written as its JSON text under its own tag instead.
 *
 * Why parts: each string value is one part of its own, so a long prompt stays the flat string
 * JSON.parse made and DigestMemo fingerprints and compares it without joining it into a new one
 * (about 1.1 µs and 24.6 KB of garbage a request on a 24.6 KB chat body, timed alone, 2026-12-05).
 */
export function keyParts(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if ((value as string & WellFormed).isWellFormed()) out.push(`s${value.length}:`, value);
    else {
      const json = JSON.stringify(value);
      out.push(`j${json.length}:`, json);
    }
  } else if (typeof value === 'number') out.push(`n${String(value)};`);
  else if (value === null) out.push('z');
  else if (value === true) out.push('t');
  else if (value === false) out.push('f');
  else if (Array.isArray(value)) {
    out.push(`a${value.length}[`);
    for (const item of value as readonly unknown[]) keyParts(item, out);
  } else if (typeof value === 'object') {
    const keys = Object.keys(value);
    out.push(`o${keys.length}{`);
    for (const k of keys) {
      keyParts(k, out);
      keyParts((value as Record<string, unknown>)[k], out);
    }
  } else {
    // Not a JSON value (JSON.parse never returns one): kept apart from every JSON value.
    out.push(`x${typeof value};`);
  }
  return out;
}

/** String.prototype.isWellFormed (Node 20's V8 has it; the ES2023 lib this project compiles against does not declare it). */
interface WellFormed {
  isWellFormed(): boolean;
}

/**
 * SHA-256 of the text's UTF-8 bytes, as hex. node:crypto's one-shot hash() (Node 20.12 on) skips
 * the Hash object createHash builds: 0.26 against 2.3 µs for a short key (timed alone, 2026-12-02).
 * An older Node 20 takes createHash, which gives the same digest.
 */
export const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** SHA-256 of the parts' concatenation, as hex. */
export function sha256OfParts(parts: readonly string[]): string {
  return sha256Hex(parts.join(''));
}
