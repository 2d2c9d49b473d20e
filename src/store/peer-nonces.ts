/**
 * Nonces of accepted signed requests, kept in SQLite so they outlive a restart. An in-memory
 * cache forgets them when the process restarts, and a request captured before the restart could
 * then be replayed inside the skew window; refusing every pre-boot timestamp instead would break
 * the ±300 s skew allowance for the first minutes after each start. One INSERT per accepted
 * signed request is the cost, paid only by authenticated peers. An entry lives for two skew
 * windows, the longest a captured timestamp can still pass the skew check, and like that check
 * its lifetime includes its last millisecond: a timestamp exactly 300 s old still passes, so a
 * nonce first seen 300 s before its timestamp must still be remembered 600 s later.
 */
import { SKEW_WINDOW_MS, type NonceMemory } from '../peer-auth/verify-signed.js';
import type { Db } from './database.js';

export const NONCE_TTL_MS = 2 * SKEW_WINDOW_MS;

export class PeerNonces implements NonceMemory {
  readonly #insert;
  readonly #seen;
  readonly #refresh;
  readonly #prune;

  constructor(db: Db) {
    this.#insert = db.prepare('INSERT OR IGNORE INTO peer_nonce (key, expires_at) VALUES (?, ?)');
    this.#seen = db.prepare('SELECT expires_at AS expiresAt FROM peer_nonce WHERE key = ?');
    this.#refresh = db.prepare('UPDATE peer_nonce SET expires_at = ? WHERE key = ?');
    this.#prune = db.prepare('DELETE FROM peer_nonce WHERE expires_at < ?');
  }

  remember(key: string, nowMs: number): boolean {
    if (this.#insert.run(key, nowMs + NONCE_TTL_MS).changes === 1) return true;
    const existing = this.#seen.get(key) as { expiresAt: number } | undefined;
    // An expired entry the pruner has not reached yet is no memory of anything.
    if (existing !== undefined && existing.expiresAt >= nowMs) return false;
    this.#refresh.run(nowMs + NONCE_TTL_MS, key);
    return true;
  }

  /** Drops expired entries; returns how many. */
  prune(nowMs: number): number {
    return this.#prune.run(nowMs).changes;
  }
}
