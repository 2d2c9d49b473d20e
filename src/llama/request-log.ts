/**
 * What the engine did with each request, as it measured it: which slot, how much of the prompt
 * came from the cache, how many tokens it generated and how it ended. Tests read it to see the
 * engine's side of a story (a hang-up that stopped generation, a request that waited for a
 * slot); `cihub dev llama` prints one line per entry.
 */

export type RequestOutcome = 'stop' | 'length' | 'aborted' | 'error';

export interface RequestRecord {
  readonly id: number;
  readonly route: string;
  readonly kind: 'completion' | 'embedding';
  readonly slot: number | null;
  readonly outcome: RequestOutcome;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly evalCount: number;
  readonly queueMs: number;
  readonly prefillMs: number;
  readonly decodeMs: number;
  readonly totalMs: number;
  /** performance.timeOrigin-based ms (comparable within one process): when it got its slot, and when it ended. */
  readonly slotAt: number;
  readonly endedAt: number;
}

export type RequestListener = (r: RequestRecord) => void;

/** Keeps the latest entries (bounded) and tells listeners about each new one. */
export class RequestLog {
  static readonly MAX_ENTRIES = 1000;
  readonly #entries: RequestRecord[] = [];
  readonly #listeners = new Set<RequestListener>();
  #nextId = 1;
  #active = 0;

  /** A request id, and one more request in progress until `finish` is called for it. */
  begin(): number {
    this.#active += 1;
    return this.#nextId++;
  }

  finish(record: RequestRecord): void {
    this.#active = Math.max(0, this.#active - 1);
    this.#entries.push(record);
    if (this.#entries.length > RequestLog.MAX_ENTRIES) this.#entries.shift();
    for (const l of this.#listeners) l(record);
  }

  /** A request that ended before it reached the model (bad input, hang-up while queued). */
  abandon(): void {
    this.#active = Math.max(0, this.#active - 1);
  }

  get active(): number {
    return this.#active;
  }

  list(): RequestRecord[] {
    return [...this.#entries];
  }

  onRecord(listener: RequestListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The first record (already logged or still to come) that matches; rejects after timeoutMs. */
  waitFor(match: (r: RequestRecord) => boolean, timeoutMs = 10_000): Promise<RequestRecord> {
    const found = this.#entries.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no matching engine request record within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onRecord((r) => {
        if (!match(r)) return;
        clearTimeout(timer);
        off();
        resolve(r);
      });
    });
  }
}
