/**
 * What one finished attempt says about a node's prefill speed (spec, "What is measured"). Pure:
 * the walk observer (proxy/throughput-sampler.ts) gathers the facts, this decides the reading.
 * - Only chat and completion routes, prompts of 4,096 estimated tokens or more, and attempts
 *   placed while the node had nothing else in flight as far as this Hub can tell (decode too).
 * - The engine's own prompt-evaluation time when it reports one; else, for a stream, the wait
 *   for the first byte; a non-streamed answer without timings gives nothing (its wait was the
 *   whole generation).
 * - Cache hits are not reads: with a cached count, the turn is timed on the part it read, and
 *   one that read fewer than 1,024 tokens gives nothing. Appends that read more count.
 * - A streamed attempt that ran out of its first-byte budget is "at least this slow".
 * - Decode: the engine's generation time, else a whole stream from its first byte to its end.
 * Rates are in the pool's own unit, bytes / 4 of the forwarded body; one past MAX_TOKENS_PER_SEC
 * (an engine's timing rounded to nothing) is no reading, here or in a peer's advert.
 */
import type { EngineTimings } from '../../proxy/walk-timings.js';
import { MAX_TOKENS_PER_SEC, THROUGHPUT_MIN_TOKENS, type Reading } from './bands.js';

/** A turn that read fewer tokens than this times fixed costs, not the hardware. */
export const MIN_READ_TOKENS = 1024;

export interface AttemptFacts {
  /** A chat or completion route. */
  readonly completion: boolean;
  /** bytes / 4 of the forwarded body, rounded up as placement rounds it (proxy/header-budget.ts). */
  readonly estimatedTokens: number;
  readonly stream: boolean;
  /** The node had nothing else in flight when the attempt started. */
  readonly idle: boolean;
  /** Time to this attempt's response headers, ms; null when none arrived. */
  readonly headersMs: number | null;
  /** True when the attempt ran out of its first-byte budget. */
  readonly missedDeadline: boolean;
  readonly budgetMs: number;
  readonly timings: EngineTimings | null;
}

export type PrefillReading = Omit<Reading, 'atMs'>;

/** Whether an attempt is timed at all: every sample, prefill and decode alike, passes this gate. */
function timed(f: AttemptFacts): boolean {
  return f.completion && f.idle && f.estimatedTokens >= THROUGHPUT_MIN_TOKENS;
}

/** The prefill reading an attempt gives, or null when it gives none. */
export function prefillReading(f: AttemptFacts): PrefillReading | null {
  if (!timed(f)) return null;
  if (f.missedDeadline) {
    return f.stream && f.budgetMs > 0 ? { promptTokens: f.estimatedTokens, tokensPerSec: (f.estimatedTokens / f.budgetMs) * 1000, deadline: true } : null;
  }
  const t = f.timings;
  let share = 1;
  if (t !== null && t.cachedTokens !== null && t.promptTokens !== null && t.promptTokens > 0) {
    const read = t.promptTokens - t.cachedTokens;
    if (read < MIN_READ_TOKENS) return null;
    share = read / t.promptTokens;
  }
  const ms = t?.promptMs ?? (f.stream ? f.headersMs : null);
  if (ms === null || !(ms > 0)) return null;
  const tokensPerSec = ((f.estimatedTokens * share) / ms) * 1000;
  return tokensPerSec <= MAX_TOKENS_PER_SEC ? { promptTokens: f.estimatedTokens, tokensPerSec, deadline: false } : null;
}

/**
 * The decode rate an attempt gives, under the same gate as a prefill reading: a node generating
 * for others decodes each stream slower (its slots share the GPU), and that is no figure for the
 * hardware. `streamedMs` as decodeRate takes it.
 */
export function decodeReading(f: AttemptFacts, streamedMs: number | null): number | null {
  return timed(f) ? decodeRate(f.timings, streamedMs) : null;
}

/**
 * The decode rate an answer gives (reported, never ranked on): the engine's own generation time
 * when it reports one, else `streamedMs`, a stream's run from its first byte to its end (an
 * OpenAI-compatible stream counts its tokens in usage but times nothing). null when there is no
 * token count or no time.
 */
export function decodeRate(t: EngineTimings | null, streamedMs: number | null): number | null {
  if (t === null || t.completionTokens === null || t.completionTokens === 0) return null;
  const ms = t.decodeMs ?? streamedMs;
  if (ms === null || !(ms > 0)) return null;
  const rate = (t.completionTokens / ms) * 1000;
  return rate <= MAX_TOKENS_PER_SEC ? rate : null;
}
