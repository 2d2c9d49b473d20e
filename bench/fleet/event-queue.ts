/**
 * The discrete-event core: a binary heap of timed callbacks. Ties run in the order they were
 * scheduled (a sequence number breaks them), so a run is a pure function of its inputs.
 */
import type { Clock } from '../../src/util/clock.js';

export interface Scheduled {
  readonly atMs: number;
  readonly seq: number;
  readonly run: () => void;
  cancelled: boolean;
}

export class EventQueue implements Clock {
  #heap: Scheduled[] = [];
  #seq = 0;
  #nowMs: number;
  #ran = 0;

  constructor(startMs: number) {
    this.#nowMs = startMs;
  }

  /** The simulated time: the Clock every real component in the run is given. */
  nowMs(): number {
    return this.#nowMs;
  }

  get eventsRun(): number {
    return this.#ran;
  }

  at(atMs: number, run: () => void): Scheduled {
    const e: Scheduled = { atMs: Math.max(atMs, this.#nowMs), seq: this.#seq++, run, cancelled: false };
    this.#heap.push(e);
    this.#up(this.#heap.length - 1);
    return e;
  }

  after(ms: number, run: () => void): Scheduled {
    return this.at(this.#nowMs + ms, run);
  }

  /** Runs events until none is left or the bound is reached; returns false when bounded out. */
  run(maxEvents: number): boolean {
    while (this.#heap.length > 0) {
      if (this.#ran >= maxEvents) return false;
      const e = this.#pop();
      if (e.cancelled) continue;
      this.#nowMs = e.atMs;
      this.#ran++;
      e.run();
    }
    return true;
  }

  #less(a: Scheduled, b: Scheduled): boolean {
    return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
  }

  #up(i: number): void {
    const h = this.#heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  #pop(): Scheduled {
    const h = this.#heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.#less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.#less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
