/**
 * Shared helpers for the micro-benchmarks: time a batch of operations, count the bytes they
 * allocate, and total the GC pauses they cause. Needs `node --expose-gc`; without it the
 * allocation figure is left out.
 *
 * Allocation is estimated as the growth of heapUsed over a small batch run between two
 * forced full GCs, so the batch must be small enough not to trigger a scavenge itself (a
 * batch that did is discarded by taking the median). Retained memory is included, which is
 * why the benchmarks run on a ring that is already full: then a batch retains nothing net.
 */
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const gc = (globalThis as { gc?: () => void }).gc;

export const hasGc = gc !== undefined;

export interface Figures {
  /** Median over rounds, microseconds per operation. */
  readonly usPerOp: number;
  /** Each round's µs/op, in order. */
  readonly rounds: readonly number[];
  /** Median bytes allocated per operation; null without --expose-gc. */
  readonly bytesPerOp: number | null;
  /** Share of the timed rounds' wall time spent in GC pauses. */
  readonly gcShare: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * measure runs op(i) opsPerRound times per round, rounds times, after a warm-up round, and
 * then estimates allocation with allocBatches batches of allocBatch operations each. op may
 * return a promise (awaited) or not.
 */
export async function measure(op: (i: number) => unknown, { rounds = 5, opsPerRound = 100_000, allocBatch = 1_000, allocBatches = 15 } = {}): Promise<Figures> {
  let counter = 0;
  const run = async (n: number): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let k = 0; k < n; k++) {
      const r = op(counter++);
      if (r instanceof Promise) await r;
    }
    return Number(process.hrtime.bigint() - start) / 1_000;
  };

  await run(opsPerRound); // warm-up: let the JIT settle

  // One observer for the whole run; a round counts the pauses that started inside it.
  const pauses: { start: number; ms: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceEntry[]) pauses.push({ start: entry.startTime, ms: entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const perRound: number[] = [];
  let timedUs = 0;
  let gcMs = 0;
  for (let r = 0; r < rounds; r++) {
    gc?.();
    await tick();
    const from = performance.now();
    const us = await run(opsPerRound);
    const to = performance.now();
    await tick(); // gc entries arrive asynchronously
    await tick();
    for (const p of pauses) if (p.start >= from && p.start < to) gcMs += p.ms;
    pauses.length = 0;
    perRound.push(us / opsPerRound);
    timedUs += us;
  }
  observer.disconnect();

  let bytesPerOp: number | null = null;
  if (gc !== undefined) {
    const samples: number[] = [];
    for (let b = 0; b < allocBatches; b++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      await run(allocBatch);
      const after = process.memoryUsage().heapUsed;
      samples.push((after - before) / allocBatch);
    }
    bytesPerOp = median(samples);
  }

  return { usPerOp: median(perRound), rounds: perRound, bytesPerOp, gcShare: gcMs / (timedUs / 1_000) };
}

export function report(name: string, f: Figures): string {
  const bytes = f.bytesPerOp === null ? 'n/a (run with --expose-gc)' : `${Math.round(f.bytesPerOp)} B/op`;
  const rounds = f.rounds.map((r) => r.toFixed(2)).join(' / ');
  return `${name.padEnd(44)} ${f.usPerOp.toFixed(2).padStart(7)} µs/op  ${bytes.padStart(10)}  GC ${(f.gcShare * 100).toFixed(0).padStart(2)}%  (rounds ${rounds})`;
}
