/**
 * Clock: the one source of time for code whose rules speak of milliseconds and minutes.
 * Injected everywhere a TTL, expiry or budget is judged, so tests run those rules
 * without sleeping.
 */
import type { Timer } from './timer.js';

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/**
 * How far ahead of now a moment may lie and still count as now: 1 s. Readings taken a moment
 * apart can arrive out of order (a placement reads the clock, awaits the engine's residency for
 * up to 500 ms, and a request that finished meanwhile has recorded a reading stamped after it;
 * a file's mtime has sub-millisecond digits Date.now() rounds away), and a step back smaller
 * than this does no harm worth acting on.
 */
export const CLOCK_STEP_TOLERANCE_MS = 1_000;

/**
 * How long ago `sinceMs` was at `nowMs`: the difference; 0 for a moment up to
 * CLOCK_STEP_TOLERANCE_MS ahead; Infinity for one further ahead. nowMs is the wall clock, which
 * NTP or an operator can set back, and a moment read before such a step then lies in the
 * future: `now - since` stays negative for as long as the step, so a cache filled before it
 * read as fresh and an expiry never came (audit, 2026-12-07: a Hub that booted two hours fast
 * saw no local engine for two hours after NTP set it right). A moment well ahead is taken as
 * long past, so caches refresh, expiries lapse and rate limits lift: each errs toward asking
 * again. Not a monotonic clock, on purpose: a PIN's ten minutes are wall minutes, and a
 * monotonic clock stops while a laptop sleeps.
 */
export function elapsedMs(nowMs: number, sinceMs: number): number {
  if (nowMs >= sinceMs) return nowMs - sinceMs;
  return sinceMs - nowMs <= CLOCK_STEP_TOLERANCE_MS ? 0 : Number.POSITIVE_INFINITY;
}

interface ManualTimer {
  readonly dueMs: number;
  readonly fire: () => void;
}

/**
 * A clock tests move by hand. It is also a Timer: a wait started on it fires when advance()
 * reaches its due time, never on its own.
 */
export class ManualClock implements Clock, Timer {
  #nowMs: number;
  #timers: ManualTimer[] = [];
  constructor(startMs = Date.UTC(2026, 10, 30, 12, 0, 0)) {
    this.#nowMs = startMs;
  }
  nowMs(): number {
    return this.#nowMs;
  }
  /** Moves time by `ms` and fires, in due order, every wait that is then due. */
  advance(ms: number): void {
    this.#nowMs += ms;
    const due = this.#timers.filter((t) => t.dueMs <= this.#nowMs).sort((a, b) => a.dueMs - b.dueMs);
    this.#timers = this.#timers.filter((t) => t.dueMs > this.#nowMs);
    for (const t of due) t.fire();
  }
  after(ms: number, fire: () => void): () => void {
    const timer: ManualTimer = { dueMs: this.#nowMs + ms, fire };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }
  /** Waits started and neither fired nor cancelled. */
  pendingTimers(): number {
    return this.#timers.length;
  }
}
