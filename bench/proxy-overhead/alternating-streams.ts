/**
 * Token streams at one connection with the targets taking turns a few streams at a time, for
 * the two one-connection token targets of issue 13 item 1 (CPU per event, first event).
 *
 * The token cases in run.ts give each target a 20 s turn, and on this host one process's CPU per
 * event at one connection moved 2x from one turn to the next (bench/README.md, 2026-12-04 21:41):
 * at 150 events a second the figure is mostly what it costs a process to wake for each event,
 * which the host's state decides. Here every target relays in every stretch of the run, so the
 * Hub is compared with the relay within one cycle. As in alternating-latency.ts, the first
 * stream of each block follows the other targets' blocks, with the process idle for seconds,
 * and is not counted.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { processCpuMs } from './proc-stat.js';
import { median, percentile } from './stats.js';
import { oneTokenStream } from './token-load.js';
import type { Quartiles } from './alternating-latency.js';

/** Streams a target relays in a row before the next target's turn. */
export const STREAM_BLOCK = 3;
/** The first streams of each block, after the process sat idle: not counted. */
export const STREAM_BLOCK_WARMUP = 1;

export interface AlternatingStreamTarget {
  readonly name: string;
  readonly url: string;
  /** The process whose CPU is the target's cost; null for the engine itself. */
  readonly cpuPid: number | null;
}

export interface AlternatingStreamSpec {
  readonly targets: readonly AlternatingStreamTarget[];
  readonly body: string;
  readonly eventsPerStream: number;
  readonly durationS: number;
}

export interface AlternatingStreamTargetResult {
  readonly name: string;
  /** Streams counted (each block's first left out). */
  readonly streams: number;
  readonly events: number;
  readonly firstEventP50Ms: number;
  /** CPU per event over every counted stream, µs; null for the engine itself. */
  readonly cpuUsPerEvent: number | null;
  /** Each block's first-event median, one per cycle, in cycle order. */
  readonly blockFirstEventMs: readonly number[];
  /** Each block's CPU per event, µs, one per cycle; empty for the engine itself. */
  readonly blockCpuUsPerEvent: readonly number[];
}

export interface AlternatingStreamResult {
  readonly cycles: number;
  readonly targets: readonly AlternatingStreamTargetResult[];
}

/** Runs the blocks for spec.durationS seconds; throws on a stream that failed or came short. */
export async function runAlternatingStreams(spec: AlternatingStreamSpec): Promise<AlternatingStreamResult> {
  const pools = spec.targets.map((t) => {
    const url = new URL(t.url);
    return { path: url.pathname, pool: new Pool(url.origin, { connections: 1 }) };
  });
  const firsts: number[][] = spec.targets.map(() => []);
  const blockFirst: number[][] = spec.targets.map(() => []);
  const blockCpu: number[][] = spec.targets.map(() => []);
  const cpuMs = spec.targets.map(() => 0);
  const events = spec.targets.map(() => 0);
  const endAt = performance.now() + spec.durationS * 1000;
  let cycles = 0;
  try {
    while (performance.now() < endAt) {
      // Rotated every cycle, so no target always follows the same one.
      for (let k = 0; k < spec.targets.length; k++) {
        const i = (cycles + k) % spec.targets.length;
        const { name, cpuPid } = spec.targets[i]!;
        const { path, pool } = pools[i]!;
        const stream = async () => {
          const got = await oneTokenStream(pool, path, spec.body, spec.eventsPerStream);
          if (got === null) throw new Error(`a token stream through ${name} failed or came short in the alternating run`);
          return got;
        };
        for (let n = 0; n < STREAM_BLOCK_WARMUP; n++) await stream();
        const cpuBefore = cpuPid === null ? 0 : processCpuMs(cpuPid);
        const block: number[] = [];
        let blockEvents = 0;
        for (let n = STREAM_BLOCK_WARMUP; n < STREAM_BLOCK; n++) {
          const got = await stream();
          block.push(got.firstMs);
          blockEvents += got.events;
        }
        if (cpuPid !== null) {
          const used = processCpuMs(cpuPid) - cpuBefore;
          cpuMs[i]! += used;
          blockCpu[i]!.push((used * 1000) / blockEvents);
        }
        firsts[i]!.push(...block);
        events[i]! += blockEvents;
        blockFirst[i]!.push(median(block));
      }
      cycles++;
    }
  } finally {
    await Promise.all(pools.map((p) => p.pool.close()));
  }
  return {
    cycles,
    targets: spec.targets.map((t, i) => ({
      name: t.name,
      streams: firsts[i]!.length,
      events: events[i]!,
      firstEventP50Ms: percentile(Float64Array.from(firsts[i]!).sort(), 50),
      cpuUsPerEvent: t.cpuPid === null || events[i] === 0 ? null : (cpuMs[i]! * 1000) / events[i]!,
      blockFirstEventMs: blockFirst[i]!,
      blockCpuUsPerEvent: blockCpu[i]!,
    })),
  };
}

/** The quartiles of `a`'s block figure over `b`'s in the same cycles, as a ratio ('ratio') or a difference ('difference'). */
export function withinCycles(a: readonly number[], b: readonly number[], as: 'ratio' | 'difference'): Quartiles {
  const v = Float64Array.from(a, (x, c) => (as === 'ratio' ? x / b[c]! : x - b[c]!)).sort();
  return { q1: percentile(v, 25), median: percentile(v, 50), q3: percentile(v, 75) };
}
