/**
 * Predicting a prompt's wait for a first byte from band readings (spec, "Predicting a prompt
 * larger than anything measured"). Attention is quadratic, so the per-token cost grows with
 * the prompt: the reading nearest the requested size is read forward at min(N / measured, 3)
 * times its per-token cost, and the prediction is never faster than the slowest reading at or
 * below that size (a node that slow on a shorter prompt cannot be faster on a longer one).
 */
import type { BandReading } from './bands.js';

/** Reading forward never multiplies the per-token cost by more than this (the physical worst case). */
export const MAX_GROWTH = 3;

/** Where a prediction's readings came from: this node's own book, or the peer's advert. */
export type PredictionSource = 'observed' | 'advertised';

export interface Prediction {
  /** The reading's rate as measured, estimated tokens per second. */
  readonly tokensPerSec: number;
  /** The prompt size it was measured at. */
  readonly fromPromptTokens: number;
  readonly extrapolated: boolean;
  readonly predictedMs: number;
  /** The reading is a missed deadline: a lower bound only. */
  readonly deadline: boolean;
  readonly source: PredictionSource;
}

/**
 * The prediction for a prompt of `estimatedTokens` from `readings`; null when no band applies
 * (unmeasured). It names its source itself, so placement keeps the object as it is rather than
 * copying it for every candidate of every large request to add the source.
 */
export function predict(readings: readonly BandReading[], estimatedTokens: number, source: PredictionSource): Prediction | null {
  // One pass, no filtered copy: this runs twice per candidate on every large request.
  let nearest: BandReading | null = null;
  let slowest: BandReading | null = null;
  for (const r of readings) {
    if (!(r.fromTokens <= estimatedTokens && r.tokensPerSec > 0)) continue;
    if (nearest === null || r.fromTokens > nearest.fromTokens) nearest = r;
    if (slowest === null || r.tokensPerSec < slowest.tokensPerSec) slowest = r;
  }
  if (nearest === null || slowest === null) return null;
  const growth = Math.min(Math.max(estimatedTokens / nearest.promptTokens, 1), MAX_GROWTH);
  const forward = (estimatedTokens / nearest.tokensPerSec) * growth * 1000;
  const bound = (estimatedTokens / slowest.tokensPerSec) * 1000;
  if (bound > forward) {
    return {
      tokensPerSec: slowest.tokensPerSec,
      fromPromptTokens: slowest.promptTokens,
      extrapolated: false,
      predictedMs: Math.round(bound),
      deadline: slowest.deadline,
      source,
    };
  }
  return {
    tokensPerSec: nearest.tokensPerSec,
    fromPromptTokens: nearest.promptTokens,
    extrapolated: growth > 1,
    predictedMs: Math.round(forward),
    deadline: nearest.deadline,
    source,
  };
}

/** The slower of two predictions (a peer cannot advertise its way out of a deadline this node watched it miss). */
export function slower(a: Prediction | null, b: Prediction | null): Prediction | null {
  if (a === null) return b;
  if (b === null) return a;
  return b.predictedMs > a.predictedMs ? b : a;
}
