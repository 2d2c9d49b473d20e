/**
 * Timer: how code that waits out a budget or deadline starts the wait. Injected beside the Clock
 * wherever such a wait decides an answer (the placement budget, the listing deadline), so tests
 * end the wait by moving a ManualClock rather than sleeping through it and timing the sleep.
 */
export interface Timer {
  /** Calls `fire` once, `ms` from now; the function returned cancels it if it has not fired. */
  after(ms: number, fire: () => void): () => void;
}

/**
 * The longest delay Node's setTimeout keeps: it fires a longer one after 1 ms (with a
 * TimeoutOverflowWarning). About 24.8 days, longer than any wait this product means to run out.
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * Node's timers. unref'd: a pending wait never by itself keeps the process alive; what is waited
 * on (a probe's socket, the server) does. A wait longer than Node can keep is held at its longest,
 * never let fire at once (a stall budget of twice a long header budget passed it).
 */
export const systemTimer: Timer = {
  after(ms, fire) {
    const timer = setTimeout(fire, Math.min(ms, MAX_TIMER_DELAY_MS));
    timer.unref();
    return () => clearTimeout(timer);
  },
};
