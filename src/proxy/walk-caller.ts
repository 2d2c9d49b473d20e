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
  readonly #abort = new AbortController();
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
  get signal(): AbortSignal {
    return this.#abort.signal;
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
    this.#abort.abort();
  }
}
