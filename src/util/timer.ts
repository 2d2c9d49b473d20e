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
 * Node's timers. unref'd: a pending wait never by itself keeps the process alive; what is waited
 * on (a probe's socket, the server) does.
 */
export const systemTimer: Timer = {
  after(ms, fire) {
    const timer = setTimeout(fire, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
