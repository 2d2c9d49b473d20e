/**
 * Latency at one client with the targets taking turns in short blocks, for the "added at p50"
 * reading of issue 13 item 1.
 *
 * The cases in run.ts give each target a whole run in its turn, so the Hub's added p50 there is
 * the difference of two medians taken seconds apart; on this host the direct target alone moved
 * 0.075 ms between rounds of one run (bench/README.md, 2026-12-04 15:40), several times the
 * margin the 0.15 ms target is judged by. Here every target answers in every stretch of the run,
 * BLOCK_REQUESTS back to back at a time, so drift of the host lands on all of them alike.
 *
 * Blocks rather than single requests: a Node process that sat idle for a few milliseconds
 * answers several times slower than back to back (bench/README.md, "What a hop costs after
 * idle"), and one request each in turn would measure that instead. The first
 * BLOCK_WARMUP_REQUESTS of each block answer just after such an idle spell and are dropped.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { median, percentile } from './stats.js';

/** Requests a target answers back to back before the next target's turn. */
export const BLOCK_REQUESTS = 50;
/** The first requests of each block, answered after the other targets' blocks left the process idle: not counted. */
export const BLOCK_WARMUP_REQUESTS = 5;

export interface AlternatingTarget {
  readonly name: string;
  readonly url: string;
}

export interface AlternatingSpec {
  readonly targets: readonly AlternatingTarget[];
  readonly body: string;
  readonly durationS: number;
}

export interface AlternatingTargetResult {
  readonly name: string;
  /** Latencies counted (the blocks' first requests left out). */
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The p50 of each of its blocks, one per cycle, in cycle order. */
  readonly blockP50Ms: readonly number[];
}

export interface AlternatingResult {
  /** Cycles run: each target answered one block in each. */
  readonly cycles: number;
  readonly targets: readonly AlternatingTargetResult[];
}

export interface Quartiles {
  readonly q1: number;
  readonly median: number;
  readonly q3: number;
}

/** Runs the blocks for spec.durationS seconds; throws on any answer that is not a 200. */
export async function runAlternating(spec: AlternatingSpec): Promise<AlternatingResult> {
  const pools = spec.targets.map((t) => {
    const url = new URL(t.url);
    return { url, pool: new Pool(url.origin, { connections: 1, pipelining: 1 }) };
  });
  const all: number[][] = spec.targets.map(() => []);
  const blockP50: number[][] = spec.targets.map(() => []);
  const endAt = performance.now() + spec.durationS * 1000;
  let cycles = 0;
  try {
    while (performance.now() < endAt) {
      // Rotated every cycle, so no target always follows the same one.
      for (let k = 0; k < spec.targets.length; k++) {
        const i = (cycles + k) % spec.targets.length;
        const block = await runBlock(pools[i]!.pool, pools[i]!.url.pathname, spec.body, spec.targets[i]!.name);
        all[i]!.push(...block);
        blockP50[i]!.push(median(block));
      }
      cycles++;
    }
  } finally {
    await Promise.all(pools.map((p) => p.pool.close()));
  }
  return {
    cycles,
    targets: spec.targets.map((t, i) => {
      const sorted = Float64Array.from(all[i]!).sort();
      return { name: t.name, requests: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), blockP50Ms: blockP50[i]! };
    }),
  };
}

/** How much slower `a`'s blocks were than `b`'s in the same cycles: the quartiles of the differences of their p50s. */
export function slowerWithinCycles(a: AlternatingTargetResult, b: AlternatingTargetResult): Quartiles {
  const diffs = Float64Array.from(a.blockP50Ms, (v, c) => v - b.blockP50Ms[c]!).sort();
  return { q1: percentile(diffs, 25), median: percentile(diffs, 50), q3: percentile(diffs, 75) };
}

async function runBlock(pool: Pool, path: string, body: string, name: string): Promise<number[]> {
  const out: number[] = [];
  for (let n = 0; n < BLOCK_REQUESTS; n++) {
    const sent = performance.now();
    const res = await pool.request({
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    for await (const _chunk of res.body as AsyncIterable<Buffer>);
    const ms = performance.now() - sent;
    if (res.statusCode !== 200) throw new Error(`${name} answered ${res.statusCode} in the alternating latency run`);
    if (n >= BLOCK_WARMUP_REQUESTS) out.push(ms);
  }
  return out;
}
