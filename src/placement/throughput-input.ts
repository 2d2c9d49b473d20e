/**
 * What throughput placement and the much-slower rule read about one request: the size and
 * budget, each candidate's prediction (absent: unmeasured), and the knobs, resolved per request.
 */
import type { Prediction } from './throughput/predict.js';
import type { Candidate } from './types.js';

/** Prompts under this many estimated tokens are explored, never deferred, and the much-slower rule leaves them alone. */
export const LARGE_PROMPT_TOKENS = 6144;

export interface ThroughputInput {
  /** bytes / 4 of the forwarded body. */
  readonly estimatedTokens: number;
  /** The first-byte budget each attempt is given, ms. */
  readonly budgetMs: number;
  /** Each candidate's prediction (slower of observed and advertised), by id; absent: unmeasured. */
  readonly predictions: ReadonlyMap<string, Prediction>;
  /** The ranker's score for a candidate (same score = a tie the ranker broke by tier or order). */
  readonly score: (c: Candidate) => number;
  /** Slot counts stated per candidate id (the much-slower rule reads them whether or not slot awareness is on). */
  readonly statedSlots: ReadonlyMap<string, number>;
  /** Candidates withheld for bad output: never judged first, never brought forward. */
  readonly withheld: ReadonlySet<string>;
  /** The candidate prefix affinity holds; null when none. */
  readonly affinityHeld: string | null;
  /** HUB_POOL_SLOWER_PLACEMENT_RATIO. */
  readonly slowerRatio: number;
  /** HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS. */
  readonly slowerFloorMs: number;
}
