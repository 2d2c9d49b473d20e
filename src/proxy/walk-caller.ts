import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

/**
 * The app's end of one request: whether the caller is still there, and the signal that aborts
 * the upstream request when it leaves. Watched from the moment the proxy takes the request,
 * not from the first attempt: a caller can leave during the engine probe or while a peer's
 * credentials are computed, and a close event that fired before anyone listened never fires
 * again (issue 9: 27 of 200 direct callers leaked a queue-depth count that way).
 */
export class CallerLine {
  readonly #res: ServerResponse;
  readonly #signal = new CallerSignal();
  #gone = false;

  constructor(res: ServerResponse) {
    this.#res = res;
    // Already closed: Node marks the response destroyed when its socket closes.
    if (res.destroyed && !res.writableFinished) this.#leave();
    else res.on('close', this.#onClose);
  }

  /** True once the caller closed its connection before the answer was complete. */
  get gone(): boolean {
    return this.#gone;
  }

  /** Aborted when the caller leaves: passed to every upstream request. */
  get signal(): CallerSignal {
    return this.#signal;
  }

  /** The answer is complete (or the walk is over): a close from now on is not the caller leaving. */
  detach(): void {
    this.#res.off('close', this.#onClose);
  }

  readonly #onClose = (): void => {
    if (!this.#res.writableFinished) this.#leave();
  };

  #leave(): void {
    this.#gone = true;
    this.#signal.abort();
  }
}

/**
 * The caller's abort signal, an EventEmitter shaped like one (`aborted`, `reason`, an 'abort'
 * event): creating an AbortController and reading its signal cost ~26 µs a request on Node 20 in
 * a loop, and 1.6% of the Hub's busy time in the non-streamed profile (bench/proxy-overhead
 * --profile, 2026-12-02), where an EventEmitter costs ~0.1 µs. Only the attempt's
 * UpstreamExchange listens to it.
 */
export class CallerSignal extends EventEmitter {
  aborted = false;
  reason: Error | undefined = undefined;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new Error('the caller closed its connection');
    this.reason.name = 'AbortError';
    this.emit('abort');
  }
}
