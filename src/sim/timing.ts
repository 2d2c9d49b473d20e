/**
 * The simulator's clock arithmetic. Durations are computed in simulated milliseconds (what an
 * engine would measure and report); only the waits are multiplied by the time scale.
 */
import { setTimeout as delay } from 'node:timers/promises';

export const NS_PER_MS = 1_000_000;

/**
 * Simulated ms to prefill the prompt tokens from `fromToken` to `toToken`. With a slow-down factor
 * k each token at position p costs (1 + k·p/1000) / tps seconds, as attention over a longer
 * context does on a CPU; integrated over the range this is the closed form below.
 */
export function prefillMs(fromToken: number, toToken: number, tps: number, slowdownPerKTok: number): number {
  const n = Math.max(0, toToken - fromToken);
  const spread = (slowdownPerKTok / 1000) * ((toToken * toToken - fromToken * fromToken) / 2);
  return ((n + spread) / tps) * 1000;
}

export function decodeMs(tokens: number, tps: number): number {
  return (tokens / tps) * 1000;
}

export function msToNs(ms: number): number {
  return Math.round(ms * NS_PER_MS);
}

/** Converts simulated waits to wall-clock waits and measures wall time back in simulated ms. */
export class TimeScale {
  readonly factor: number;

  constructor(factor: number) {
    if (!(factor >= 0) || !Number.isFinite(factor)) throw new Error(`timeScale must be >= 0, got ${factor}`);
    this.factor = factor;
  }

  wallMs(simMs: number): number {
    return simMs * this.factor;
  }

  /** Simulated ms that `wallMs` of real time stands for (0 when time does not pass in the simulation). */
  simMs(wallMs: number): number {
    return this.factor === 0 ? 0 : wallMs / this.factor;
  }

  /** Waits `simMs` simulated ms; rejects with an AbortError if the signal fires first. */
  async sleep(simMs: number, signal?: AbortSignal): Promise<void> {
    await sleepWall(this.wallMs(simMs), signal);
  }
}

/** Timers below a millisecond only cost a turn of the event loop, so they are skipped. */
const MIN_TIMER_MS = 1;

export async function sleepWall(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  if (ms < MIN_TIMER_MS) return;
  await delay(ms, undefined, signal === undefined ? undefined : { signal });
}

/** Waits until a wall-clock instant from performance.now(); used to pace decode tokens without drift. */
export async function sleepUntil(wallDeadline: number, signal?: AbortSignal): Promise<void> {
  await sleepWall(wallDeadline - performance.now(), signal);
}
