/**
 * "Check the API key that peer holds for its engine": warned once per peer, engine and status
 * every ten minutes, at debug in between (spec, Failover). The peer stays a candidate, so the
 * refusal recurs on every request that ranks it; one warning per window is what an operator reads.
 */
import type { Logger } from 'pino';
import { elapsedMs, type Clock } from '../util/clock.js';

export const ENGINE_REFUSAL_WARN_EVERY_MS = 10 * 60_000;
/** Bound on remembered (peer, engine, status) keys. */
const MAX_KEYS = 1_000;

export class EngineRefusalWarnings {
  readonly #last = new Map<string, number>();
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(clock: Clock, logger: Logger) {
    this.#clock = clock;
    this.#logger = logger;
  }

  /** Returns whether this call logged at warn (rather than debug). */
  note(peer: string, engine: string | null, status: number): boolean {
    const key = `${peer}|${engine ?? '?'}|${status}`;
    const now = this.#clock.nowMs();
    const last = this.#last.get(key);
    const fields = { peer, engine, status };
    // A warning stamped ahead of now (the wall clock was set back) is no reason to stay quiet (clock.ts, elapsedMs).
    if (last !== undefined && elapsedMs(now, last) < ENGINE_REFUSAL_WARN_EVERY_MS) {
      this.#logger.debug(fields, "a peer's engine refused the key that peer holds for it");
      return false;
    }
    if (this.#last.size >= MAX_KEYS) this.#last.delete(this.#last.keys().next().value!);
    this.#last.set(key, now);
    this.#logger.warn(fields, `${peer}'s ${engine ?? 'engine'} answered ${status}: check the API key that peer holds for it`);
    return true;
  }
}
