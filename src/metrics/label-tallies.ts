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

/**
 * The series of one metric, found by their label values one label at a time, in nested maps.
 * Every settled request counts into three series; a key string per series (JSON.stringify of the
 * values) made recording a row 1.07-1.14 µs, the maps 0.15-0.30 µs (200,000 rows, 5 rounds,
 * 2026-12-03). Exact values at each level, so no two sets of label values can share a series.
 */
class SeriesIndex<N extends string, S extends { readonly labels: Labels<N> }> {
  readonly #root = new Map<string, unknown>();
  /** In the order each set of label values was first seen: the order prom-client renders. */
  readonly #all: S[] = [];

  constructor(readonly names: readonly N[]) {}

  /** The series for these label values; undefined until add() was given one. */
  find(labels: Labels<N>): S | undefined {
    let level: Map<string, unknown> | undefined = this.#root;
    for (let i = 0; i < this.names.length - 1 && level !== undefined; i++) level = level.get(labels[this.names[i]!]) as Map<string, unknown> | undefined;
    return level?.get(this.#leafOf(labels)) as S | undefined;
  }

  /** Files a series under its label values, which find() found nothing for. */
  add(series: S): S {
    let level = this.#root;
    for (let i = 0; i < this.names.length - 1; i++) {
      const value = series.labels[this.names[i]!];
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) level.set(value, (next = new Map()));
      level = next;
    }
    level.set(this.#leafOf(series.labels), series);
    this.#all.push(series);
    return series;
  }

  #leafOf(labels: Labels<N>): string {
    return this.names.length === 0 ? '' : labels[this.names[this.names.length - 1]!];
  }

  values(): IterableIterator<S> {
    return this.#all.values();
  }
}

export class CounterTally<N extends string> {
  readonly #series: SeriesIndex<N, { labels: Labels<N>; value: number }>;

  constructor(readonly labelNames: readonly N[]) {
    this.#series = new SeriesIndex(labelNames);
  }

  inc(labels: Labels<N>): void {
    const s = this.#series.find(labels) ?? this.#series.add({ labels, value: 0 });
    s.value += 1;
  }

  series(): IterableIterator<CounterSeries<N>> {
    return this.#series.values();
  }
}

export class HistogramTally<N extends string> {
  readonly #series: SeriesIndex<N, { labels: Labels<N>; bucketCounts: number[]; sum: number; count: number }>;

  /** upperBounds ascending; a value above the last counts only towards +Inf (the count). */
  constructor(
    readonly labelNames: readonly N[],
    readonly upperBounds: readonly number[],
  ) {
    this.#series = new SeriesIndex(labelNames);
  }

  /** A value that is not a finite number is not counted (prom-client refused one by throwing). */
  observe(labels: Labels<N>, value: number): void {
    if (!Number.isFinite(value)) return;
    const s = this.#series.find(labels) ?? this.#series.add({ labels, bucketCounts: this.upperBounds.map(() => 0), sum: 0, count: 0 });
    const bounds = this.upperBounds;
    let i = 0;
    while (i < bounds.length && !(value <= bounds[i]!)) i++;
    if (i < bounds.length) s.bucketCounts[i]! += 1;
    s.sum += value;
    s.count += 1;
  }

  series(): IterableIterator<HistogramSeries<N>> {
    return this.#series.values();
  }
}
