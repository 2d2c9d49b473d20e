/**
 * The owner of every timer and fire-and-forget promise in the Hub. A background task that
 * throws or rejects is caught here, logged, and the Hub carries on: Node ends the process on
 * an unhandled rejection, and a peer health tick that met SQLITE_BUSY once took a whole Hub
 * down that way (issue 9, defect 1).
 *
 * Logging is per task and rate-limited: the first failure is logged at warn, repeats of the
 * same failure within REPEAT_LOG_INTERVAL_MS are only counted (a 1 s tick failing for an hour
 * would otherwise write 3,600 lines), and the count goes out with the next line. The first
 * success after a failure is logged once at info.
 *
 * Periodic tasks never overlap: a tick that is still running when the next is due is skipped,
 * so a slow store or a hung peer cannot pile up runs.
 */
import { elapsedMs, type Clock } from './clock.js';
import type { Logger } from './logger.js';

/** Repeats of one task's failure are logged at most this often: 5 minutes. */
export const REPEAT_LOG_INTERVAL_MS = 5 * 60_000;

export type BackgroundTask = () => unknown;

/**
 * What a task returns when it found nothing to do: neither a success nor a failure, so the record
 * of a failure stands (an export tick with no spans says nothing about the collector).
 */
export const IDLE: unique symbol = Symbol('idle');

/** A scheduled task; stop() cancels it (a run in progress finishes). */
export interface BackgroundHandle {
  stop(): void;
}

interface FailureState {
  /** The failure last logged, to tell a repeat from a new failure. */
  signature: string;
  loggedAtMs: number;
  /** Failures since the last line, not logged yet. */
  suppressed: number;
}

export class Background {
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #failures = new Map<string, FailureState>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(deps: { logger: Logger; clock: Clock }) {
    this.#logger = deps.logger;
    this.#clock = deps.clock;
  }

  /** Runs `task` every `intervalMs` (first run after one interval), skipping a tick while the previous run is still going. */
  every(name: string, intervalMs: number, task: BackgroundTask): BackgroundHandle {
    let running = false;
    const timer = setInterval(() => {
      if (running || this.#closed) return;
      running = true;
      void this.settle(name, task).finally(() => (running = false));
    }, intervalMs);
    return this.#own(timer, () => clearInterval(timer));
  }

  /** Runs `task` once after `delayMs`. */
  after(name: string, delayMs: number, task: BackgroundTask): BackgroundHandle {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#closed) void this.settle(name, task);
    }, delayMs);
    return this.#own(timer, () => clearTimeout(timer));
  }

  /** Runs `task` now, without waiting for it: its failure is caught and logged like a timer's. */
  run(name: string, task: BackgroundTask): void {
    if (!this.#closed) void this.settle(name, task);
  }

  /**
   * Runs `task` once the I/O callback that asked for it is done (setImmediate), without waiting
   * for it. For work a request starts but does not wait for: started in line, its synchronous
   * part (an undici dispatch, a socket write) ran before the request's own upstream write.
   */
  soon(name: string, task: BackgroundTask): void {
    if (this.#closed) return;
    setImmediate(() => {
      if (!this.#closed) void this.settle(name, task);
    });
  }

  /**
   * Runs `task` now (its synchronous part before this returns) and resolves when it is done,
   * whichever way: never rejects, so a caller may await it or leave it.
   */
  async settle(name: string, task: BackgroundTask): Promise<void> {
    let result: unknown;
    try {
      result = await task();
    } catch (err) {
      this.#failed(name, err);
      return;
    }
    if (result !== IDLE) this.#succeeded(name);
  }

  /** Cancels every timer; tasks started later do not run. */
  close(): void {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #own(timer: NodeJS.Timeout, cancel: () => void): BackgroundHandle {
    // Background work never keeps the process alive: shutdown is the server's decision.
    timer.unref();
    this.#timers.add(timer);
    return {
      stop: () => {
        cancel();
        this.#timers.delete(timer);
      },
    };
  }

  #failed(name: string, err: unknown): void {
    const now = this.#clock.nowMs();
    const error = describe(err);
    const signature = `${error.code ?? ''}:${error.message}`;
    const prior = this.#failures.get(name);
    // elapsedMs, not a subtraction: after the wall clock is set back, a bare difference stays
    // negative and held every repeat back for as long as the step (clock.ts).
    if (prior && prior.signature === signature && elapsedMs(now, prior.loggedAtMs) < REPEAT_LOG_INTERVAL_MS) {
      prior.suppressed += 1;
      return;
    }
    const repeats = prior?.suppressed ?? 0;
    this.#failures.set(name, { signature, loggedAtMs: now, suppressed: 0 });
    this.#logger.warn(
      { task: name, error, ...(repeats > 0 ? { repeatsNotLogged: repeats } : {}) },
      `background task "${name}" failed and will run again: ${error.message}`,
    );
  }

  #succeeded(name: string): void {
    const prior = this.#failures.get(name);
    if (!prior) return;
    this.#failures.delete(name);
    this.#logger.info({ task: name, ...(prior.suppressed > 0 ? { repeatsNotLogged: prior.suppressed } : {}) }, `background task "${name}" succeeded again`);
  }
}

/** The code and message of a failure; never a stack with a body in it. */
function describe(err: unknown): { code: string | null; message: string } {
  const e = err as { code?: unknown; message?: unknown } | null;
  return {
    code: typeof e?.code === 'string' ? e.code : null,
    message: typeof e?.message === 'string' ? e.message : String(err),
  };
}
