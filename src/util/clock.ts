/**
 * Clock: the one source of time for code whose rules speak of milliseconds and minutes.
 * Injected everywhere a TTL, expiry or budget is judged, so tests run those rules
 * without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  #nowMs: number;
  constructor(startMs = Date.UTC(2026, 10, 30, 12, 0, 0)) {
    this.#nowMs = startMs;
  }
  nowMs(): number {
    return this.#nowMs;
  }
  advance(ms: number): void {
    this.#nowMs += ms;
  }
}
