/**
 * Connections Node turned away at the server's ceiling (edge.ts, MAX_CONNECTIONS), told to the
 * operator. A drop is silent on the wire: the caller sees its socket closed before any answer,
 * and a peer whose health poll is dropped counts this Hub as unreachable. The first drop warns at
 * once, later ones at most once a minute with how many there were since; /metrics counts them all.
 */
import { elapsedMs, type Clock } from '../util/clock.js';

/** The least time between two warnings about dropped connections. */
export const DROP_WARNING_INTERVAL_MS = 60_000;

export class ConnectionDrops {
  readonly #clock: Clock;
  #sinceWarning = 0;
  /** null before the first warning. */
  #warnedAtMs: number | null = null;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Counts one drop; the number to warn about now (this one included), or null while a warning is recent. */
  record(): number | null {
    this.#sinceWarning += 1;
    const now = this.#clock.nowMs();
    // A warning stamped ahead of now (the wall clock was set back) is no reason to stay quiet (clock.ts, elapsedMs).
    if (this.#warnedAtMs !== null && elapsedMs(now, this.#warnedAtMs) < DROP_WARNING_INTERVAL_MS) return null;
    this.#warnedAtMs = now;
    const count = this.#sinceWarning;
    this.#sinceWarning = 0;
    return count;
  }
}
