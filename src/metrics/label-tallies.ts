/**
 * Counters and histograms as plain maps, one series per distinct set of label values, in the
 * order each set was first seen. The Hub counts every settled request here rather than in
 * prom-client so that prom-client is loaded only when /metrics is first scraped (it and the
 * OpenTelemetry API it pulls in cost an idle Hub about 4 MiB of RSS: bench/README.md,
 * 2026-12-02 08:06). prom-client renders these series at scrape time (prom-registry.ts) exactly
 * as its own Counter and Histogram would have: same series order, same cumulative buckets, and
 * the same sums, since the same values are added in the same order.
 */

export type Labels<N extends string> = Readonly<Record<N, string>>;

export interface CounterSeries<N extends string> {
  readonly labels: Labels<N>;
  readonly value: number;
}

export interface HistogramSeries<N extends string> {
  readonly labels: Labels<N>;
  /** Observations per bucket, not cumulative: index i counts values above bound i-1 and at most bound i. */
  readonly bucketCounts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** A key no two different sets of label values share (JSON quotes every value). */
function seriesKey<N extends string>(names: readonly N[], labels: Labels<N>): string {
  return JSON.stringify(names.map((n) => labels[n]));
}

export class CounterTally<N extends string> {
  readonly #series = new Map<string, { labels: Labels<N>; value: number }>();

  constructor(readonly labelNames: readonly N[]) {}

  inc(labels: Labels<N>): void {
    const key = seriesKey(this.labelNames, labels);
    const s = this.#series.get(key);
    if (s) s.value += 1;
    else this.#series.set(key, { labels, value: 1 });
  }

  series(): IterableIterator<CounterSeries<N>> {
    return this.#series.values();
  }
}

export class HistogramTally<N extends string> {
  readonly #series = new Map<string, { labels: Labels<N>; bucketCounts: number[]; sum: number; count: number }>();

  /** upperBounds ascending; a value above the last counts only towards +Inf (the count). */
  constructor(
    readonly labelNames: readonly N[],
    readonly upperBounds: readonly number[],
  ) {}

  /** A value that is not a finite number is not counted (prom-client refused one by throwing). */
  observe(labels: Labels<N>, value: number): void {
    if (!Number.isFinite(value)) return;
    const key = seriesKey(this.labelNames, labels);
    let s = this.#series.get(key);
    if (!s) {
      s = { labels, bucketCounts: this.upperBounds.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, s);
    }
    const i = this.upperBounds.findIndex((bound) => value <= bound);
    if (i >= 0) s.bucketCounts[i]! += 1;
    s.sum += value;
    s.count += 1;
  }

  series(): IterableIterator<HistogramSeries<N>> {
    return this.#series.values();
  }
}
