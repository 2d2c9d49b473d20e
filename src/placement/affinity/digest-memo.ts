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
  readonly text: string;
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

  /** The digest of the text: the memo's when it digested an equal text recently, else a fresh one. */
  readonly digestOf = (text: string): string => {
    if (text.length < DIGEST_MEMO_MIN_CHARS || text.length > this.#maxChars) return this.#digest(text);
    const fingerprint = `${text.length}:${text.slice(0, FINGERPRINT_END_CHARS)}${text.slice(-FINGERPRINT_END_CHARS)}`;
    const held = this.#entries.get(fingerprint);
    if (held !== undefined) {
      this.#entries.delete(fingerprint);
      if (held.text === text) {
        this.#entries.set(fingerprint, held);
        return held.digest;
      }
      this.#chars -= held.text.length;
    }
    const digest = this.#digest(text);
    this.#entries.set(fingerprint, { text, digest });
    this.#chars += text.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= entry.text.length;
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
