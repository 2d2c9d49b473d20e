/**
 * Queue depth as the proxy counts it (spec, Ranking): incremented when a request is handed
 * to an engine, decremented when its response finishes. Nothing reads the engine's own queue,
 * so traffic that bypasses the proxy is invisible here, by design and by documentation.
 */
export class InFlight {
  readonly #counts = new Map<string, number>();
  #placed = 0;

  /** Counts one request placed on `key` (a local backend id, or a peer's name); returns the release function, idempotent. */
  acquire(key: string): () => void {
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#placed += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = (this.#counts.get(key) ?? 1) - 1;
      if (next <= 0) this.#counts.delete(key);
      else this.#counts.set(key, next);
    };
  }

  count(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  /** Every key with something in flight, and how many. */
  entries(): ReadonlyMap<string, number> {
    return new Map(this.#counts);
  }

  /** Requests placed since start, every attempt counted: how the idle collection tells that work arrived between its checks. */
  get placed(): number {
    return this.#placed;
  }

  total(): number {
    let sum = 0;
    for (const n of this.#counts.values()) sum += n;
    return sum;
  }
}
