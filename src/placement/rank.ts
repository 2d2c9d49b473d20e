/**
 * The ranker (spec, "Ranking"): candidates ordered by queue depth, with the local node given
 * a head start of poolLocalAffinity queued requests because a follow-up turn served here reuses
 * the prompt cache the previous one left. An exact tie still goes to local (no hop). Among
 * equals, the order the engines were configured in stands (Array.prototype.sort is stable).
 */
import type { Candidate } from './types.js';

export interface RankOptions {
  /** poolLocalAffinity: 0-20. */
  readonly localAffinity: number;
}

export function rankCandidates(candidates: readonly Candidate[], opts: RankOptions): Candidate[] {
  const effective = (c: Candidate) => (c.node === 'local' ? c.queueDepth - opts.localAffinity : c.queueDepth);
  return [...candidates].sort((a, b) => {
    const diff = effective(a) - effective(b);
    if (diff !== 0) return diff;
    return Number(b.node === 'local') - Number(a.node === 'local');
  });
}
