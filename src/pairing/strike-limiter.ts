/**
 * Strike-and-backoff: a source that fails twice inside the window is refused for a minute,
 * and each failure after that (while refused, or soon after being let back in) doubles the
 * refusal, up to a ceiling. It is a second layer for pairing: the PIN's own five-guess limit
 * is the real bound, and this only slows one persistent source down. Keys arrive from
 * unauthenticated callers, so the table is capped and the least recently struck key goes first.
 */
import { elapsedMs, type Clock } from '../util/clock.js';

export const DEFAULT_STRIKE_WINDOW_MS = 5 * 60_000;
export const DEFAULT_STRIKES_TO_BLOCK = 2;
export const DEFAULT_FIRST_BACKOFF_MS = 60_000;
export const DEFAULT_MAX_BACKOFF_MS = 15 * 60_000;
export const DEFAULT_MAX_TRACKED_KEYS = 10_000;

export interface StrikeLimiterOptions {
  clock: Clock;
  windowMs?: number;
  strikesToBlock?: number;
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  maxKeys?: number;
}

export type StrikeCheck = { allowed: true } | { allowed: false; retryAfterMs: number };

interface KeyRecord {
  /** Strike times inside the window, while the key has never been blocked. */
  strikes: number[];
  /** The last refusal handed out; 0 until the key is first blocked. */
  backoffMs: number;
  /** When that refusal began; null until the key is first blocked. The start, not the end: check() measures it with elapsedMs. */
  blockedAtMs: number | null;
  lastStrikeMs: number;
}

export class StrikeLimiter {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #strikesToBlock: number;
  readonly #firstBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #maxKeys: number;
  /** Insertion order doubles as recency: a struck key is re-inserted at the end. */
  readonly #records = new Map<string, KeyRecord>();

  constructor(opts: StrikeLimiterOptions) {
    this.#clock = opts.clock;
    this.#windowMs = opts.windowMs ?? DEFAULT_STRIKE_WINDOW_MS;
    this.#strikesToBlock = opts.strikesToBlock ?? DEFAULT_STRIKES_TO_BLOCK;
    this.#firstBackoffMs = opts.firstBackoffMs ?? DEFAULT_FIRST_BACKOFF_MS;
    this.#maxBackoffMs = opts.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    this.#maxKeys = opts.maxKeys ?? DEFAULT_MAX_TRACKED_KEYS;
  }

  /**
   * Refused while any key is blocked; the wait is the longest among them. A block begun before the
   * wall clock was set back is over (elapsedMs): judged by its end, a 60 s block set before a
   * two-hour step answered "retry after 91 minutes" half an hour later (audit, 2026-12-07).
   */
  check(keys: readonly string[]): StrikeCheck {
    const now = this.#clock.nowMs();
    let wait = 0;
    for (const key of keys) {
      const record = this.#records.get(key);
      if (record === undefined || record.blockedAtMs === null) continue;
      wait = Math.max(wait, record.backoffMs - elapsedMs(now, record.blockedAtMs));
    }
    return wait > 0 ? { allowed: false, retryAfterMs: wait } : { allowed: true };
  }

  strike(keys: readonly string[]): void {
    const now = this.#clock.nowMs();
    for (const key of new Set(keys)) {
      let record = this.#records.get(key);
      if (record !== undefined && this.#forgotten(record, now)) record = undefined;
      record ??= { strikes: [], backoffMs: 0, blockedAtMs: null, lastStrikeMs: now };
      this.#apply(record, now);
      this.#records.delete(key);
      this.#records.set(key, record);
    }
    for (const oldest of this.#records.keys()) {
      if (this.#records.size <= this.#maxKeys) break;
      this.#records.delete(oldest);
    }
  }

  /** Forgets the keys outright, e.g. after the source proved itself. */
  clear(keys: readonly string[]): void {
    for (const key of keys) this.#records.delete(key);
  }

  /** How many keys are tracked (bounded by maxKeys). */
  get size(): number {
    return this.#records.size;
  }

  #apply(record: KeyRecord, now: number): void {
    record.lastStrikeMs = now;
    if (record.backoffMs > 0) {
      // Already blocked once and not yet forgotten: the source is persisting, so escalate.
      record.backoffMs = Math.min(record.backoffMs * 2, this.#maxBackoffMs);
      record.blockedAtMs = now;
      return;
    }
    record.strikes = record.strikes.filter((t) => elapsedMs(now, t) < this.#windowMs);
    record.strikes.push(now);
    if (record.strikes.length >= this.#strikesToBlock) {
      record.strikes = [];
      record.backoffMs = Math.min(this.#firstBackoffMs, this.#maxBackoffMs);
      record.blockedAtMs = now;
    }
  }

  /**
   * A record stops counting against its key after a full window of quiet: for a key never
   * blocked, a window since its last strike; for a blocked one, a window after the block ends.
   * Without this a single old block would make one mistake weeks later cost double.
   */
  #forgotten(record: KeyRecord, now: number): boolean {
    if (record.blockedAtMs === null) return elapsedMs(now, record.lastStrikeMs) >= this.#windowMs;
    return elapsedMs(now, record.blockedAtMs) >= record.backoffMs + this.#windowMs;
  }
}

/** Normalises an address so ::ffff:10.0.0.7 and 10.0.0.7 count as one source. */
function sourceAddress(ip: string): string {
  const lower = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped?.[1] ?? lower;
}

/**
 * The limiter keys for one pairing request: the claimed name always, and the caller's IP only
 * when the caller passes one. Whether the IP names the real client (rather than a proxy every
 * caller shares, where keying on it would lock everyone out at once) is the route's decision.
 */
export function pairingSourceKeys(claimedFqdn: string, callerIp: string | null): string[] {
  const name = claimedFqdn.trim().toLowerCase().replace(/\.$/, '');
  const keys = [`fqdn:${name}`];
  if (callerIp !== null && callerIp.trim() !== '') keys.push(`ip:${sourceAddress(callerIp)}`);
  return keys;
}
