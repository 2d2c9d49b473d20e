/**
 * Nonces seen on accepted signed requests, so a captured request cannot be replayed.
 *
 * An entry must outlive every timestamp that could still pass the skew check: a request stamped
 * at the far edge of the future window stays acceptable for two windows after it is first seen,
 * hence ttl = 2 x skew. The Map keeps insertion order, so with one ttl the oldest entries are at
 * the front and expiry is a short walk from there. The bound caps memory under a flood; evicting
 * the oldest when full only reopens nonces that are closest to expiring anyway.
 */
import { SKEW_WINDOW_MS } from './verify-signed.js';

export interface NonceCacheOptions {
  maxEntries?: number;
  ttlMs?: number;
}

export class NonceCache {
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  /** key -> expiry (unix ms). */
  readonly #entries = new Map<string, number>();

  constructor({ maxEntries = 100_000, ttlMs = 2 * SKEW_WINDOW_MS }: NonceCacheOptions = {}) {
    if (maxEntries < 1) throw new Error('NonceCache needs room for at least one entry');
    this.#maxEntries = maxEntries;
    this.#ttlMs = ttlMs;
  }

  /** true the first time a key is seen inside the ttl; false for a repeat. */
  remember(key: string, nowMs: number): boolean {
    for (const [oldest, expiresAt] of this.#entries) {
      if (expiresAt > nowMs) break;
      this.#entries.delete(oldest);
    }
    const seen = this.#entries.get(key);
    // Checked explicitly: if the clock stepped back, an expired entry may sit behind a live one.
    if (seen !== undefined && seen > nowMs) return false;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, nowMs + this.#ttlMs);
    return true;
  }

  get size(): number {
    return this.#entries.size;
  }
}
