/** Throughput inputs for the step tables: predictions by candidate, the ranker's default score, the spec's knobs. */
import type { ThroughputInput } from '../throughput-input.js';
import type { Prediction } from '../throughput/predict.js';
import type { Candidate } from '../types.js';

/** A prediction measured here at the requested size. */
export function measured(predictedMs: number, tokens: number, deadline = false): Prediction {
  return {
    tokensPerSec: Math.round((tokens / predictedMs) * 1000 * 10) / 10,
    fromPromptTokens: tokens,
    extrapolated: false,
    predictedMs,
    deadline,
    source: 'observed',
  };
}

export function throughputInput(
  tokens: number,
  predictions: readonly (readonly [Candidate, number, boolean?])[],
  over: Partial<ThroughputInput> = {},
): ThroughputInput {
  return {
    estimatedTokens: tokens,
    budgetMs: 327_000,
    predictions: new Map(predictions.map(([c, ms, deadline]) => [c.id, measured(ms, tokens, deadline ?? false)])),
    // poolLocalAffinity 1, pressure off: the ranker's default score.
    score: (c) => (c.node === 'local' ? c.queueDepth - 1 : c.queueDepth),
    statedSlots: new Map(),
    withheld: new Set(),
    affinityHeld: null,
    slowerRatio: 3,
    slowerFloorMs: 20_000,
    ...over,
  };
}
