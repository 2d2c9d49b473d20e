/**
 * The digests of recent long key texts, so a session's later calls, which repeat its head byte
 * for byte, skip the SHA-256 of it. The key is still one SHA-256 over the whole head (spec,
 * "Prefix affinity", The key): a hit returns the digest of a text equal to this one, never a
 * guess from part of it.
 *
 * Why: on a 24.6 KB prompt the digest was 15-17 µs of a 70 µs placement at 50 peers (2026-12-03),
 * and an agent sends the same head on every call of its session. A hit costs a lookup by a short
 * fingerprint and one comparison of the two texts (memcmp, about 1 µs for 24.6 KB).
 *
 * A text comes in parts (session-key.ts, keyParts) and is compared part by part: joined, the
 * parts would be copied into one new string on every request, where a long part is the flat
 * string JSON.parse made and compares in place. Two texts are held as equal only when their
 * parts are, and equal parts join to equal texts, so a hit is still the digest of this text.
 *
 * The lookup goes through a fingerprint because V8 hashes a string of up to 16,383 characters
 * over every character to use it as a Map key, and that hash is slower than the SHA-256 itself
 * (a fresh 15,000-character key: 22 µs, measured 2026-12-03). Two texts that share a fingerprint
 * share a slot: the later one takes it, and the comparison keeps them from ever sharing a digest.
 */
import { PREFIX_AFFINITY_MAX_KEYS } from './affinity-table.js';

/** Texts shorter than this are digested directly: below it the lookup costs about what the digest does. */
export const DIGEST_MEMO_MIN_CHARS = 4_096;
/** As many texts as the affinity table holds keys: a session it forgot needs no digest kept. */
export const DIGEST_MEMO_MAX_ENTRIES = PREFIX_AFFINITY_MAX_KEYS;
/** The texts held, in UTF-16 code units: at most 16 MiB of strings (8 MiB for text V8 stores a byte a character). */
export const DIGEST_MEMO_MAX_CHARS = 8 * 1024 * 1024;
/** Characters from each end of the text that go into its fingerprint, beside its length. */
const FINGERPRINT_END_CHARS = 64;

interface Entry {
  readonly parts: readonly string[];
  readonly chars: number;
  readonly digest: string;
}

export class DigestMemo {
  readonly #digest: (text: string) => string;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  /** By fingerprint, least recently used first (a Map keeps insertion order; a hit re-inserts). */
  readonly #entries = new Map<string, Entry>();
  #chars = 0;

  constructor(digest: (text: string) => string, bounds: { maxEntries?: number; maxChars?: number } = {}) {
    this.#digest = digest;
    this.#maxEntries = bounds.maxEntries ?? DIGEST_MEMO_MAX_ENTRIES;
    this.#maxChars = bounds.maxChars ?? DIGEST_MEMO_MAX_CHARS;
  }

  /** The digest of the parts' concatenation: the memo's when it digested equal parts recently, else a fresh one. */
  readonly digestOf = (parts: readonly string[]): string => {
    let chars = 0;
    for (const part of parts) chars += part.length;
    if (chars < DIGEST_MEMO_MIN_CHARS || chars > this.#maxChars) return this.#digest(parts.join(''));
    const fingerprint = `${chars}:${firstChars(parts)}${lastChars(parts)}`;
    const held = this.#entries.get(fingerprint);
    if (held !== undefined) {
      this.#entries.delete(fingerprint);
      if (samePartsAs(held.parts, parts)) {
        this.#entries.set(fingerprint, held);
        return held.digest;
      }
      this.#chars -= held.chars;
    }
    const text = parts.join('');
    const digest = this.#digest(text);
    this.#entries.set(fingerprint, { parts: cutLike(text, parts), chars, digest });
    this.#chars += chars;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= entry.chars;
    }
    return digest;
  };

  /** Texts held now; for tests. */
  get size(): number {
    return this.#entries.size;
  }

  /** Characters held now; for tests. */
  get chars(): number {
    return this.#chars;
  }
}

/** The text's first FINGERPRINT_END_CHARS characters, sliced from the parts that hold them (never from a joined text). */
function firstChars(parts: readonly string[]): string {
  let head = '';
  for (const part of parts) {
    const room = FINGERPRINT_END_CHARS - head.length;
    if (part.length >= room) return head + part.slice(0, room);
    head += part;
  }
  return head;
}

/** The text's last FINGERPRINT_END_CHARS characters, the same way. */
function lastChars(parts: readonly string[]): string {
  let tail = '';
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    const room = FINGERPRINT_END_CHARS - tail.length;
    if (part.length >= room) return part.slice(part.length - room) + tail;
    tail = part + tail;
  }
  return tail;
}

/**
 * The joined text cut back into the parts' lengths. The memo holds these rather than the
 * request's own strings, so what it keeps is one string of exactly `chars` characters whatever
 * the parts point into (a part sliced from a whole request body would keep the body alive).
 */
function cutLike(text: string, parts: readonly string[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const part of parts) {
    out.push(text.slice(at, at + part.length));
    at += part.length;
  }
  return out;
}

function samePartsAs(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
