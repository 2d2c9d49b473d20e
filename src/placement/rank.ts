/**
 * The ranker (spec, "Ranking"): one list of local engines and peers, ordered by queue depth.
 * The local node gets a head start of poolLocalAffinity queued requests, because a follow-up
 * turn served here reuses the prompt cache the previous one left; an exact tie still goes to
 * local (no hop). With poolPressureWeight above 0 the GPU-pressure band adds weight × band; at
 * 0 the comparator never reads pressure at all. Remaining ties go to the better hardware tier,
 * then to the order candidates were built in (the sort is stable).
 */
import type { Candidate } from './types.js';

export interface RankOptions {
  /** poolLocalAffinity: 0-20. */
  readonly localAffinity: number;
  /** poolPressureWeight: 0-3; 0 keeps pressure out of the comparator entirely. */
  readonly pressureWeight: number;
}

/** Better tiers first; a node that reports none sits between the GPU tiers and the CPU ones. */
const TIER_RANK: Readonly<Record<string, number>> = { 'high-end': 0, 'mid-range': 1, 'cpu-only': 3, insufficient: 4 };
const UNREPORTED_TIER_RANK = 2;

interface Keyed {
  readonly c: Candidate;
  readonly score: number;
  readonly local: number;
  readonly tier: number;
}

export function rankCandidates(candidates: readonly Candidate[], opts: RankOptions): Candidate[] {
  // Each candidate's keys read once rather than in every comparison (about 5 per candidate at 50):
  // placement at 50 peers 0.91x short, 0.95x long (bench/micro/placement.ts).
  const keyed: Keyed[] = [];
  for (const c of candidates) {
    const tier = c.hardwareTier === null ? UNREPORTED_TIER_RANK : (TIER_RANK[c.hardwareTier] ?? UNREPORTED_TIER_RANK);
    keyed.push({ c, score: rankScore(c, opts), local: Number(c.node === 'local'), tier });
  }
  // A stable insertion sort written out: Array.prototype.sort called the comparator through a
  // generic call for each of about 280 comparisons at 51 candidates. Ranking 51 candidates in
  // mixed order 3.3 -> 2.1 µs; its worst case, 51 in exactly reverse order, 1.4 -> 3.5 µs
  // (scratch, CPU 1, 2026-12-05). Queue depths do not follow the order peers are listed in, so
  // placement pays the mixed case (bench/micro/placement.ts: 0.92x short, 0.98x long at 50 peers).
  for (let i = 1; i < keyed.length; i++) {
    const k = keyed[i]!;
    let j = i - 1;
    for (; j >= 0 && rankedBefore(k, keyed[j]!); j--) keyed[j + 1] = keyed[j]!;
    keyed[j + 1] = k;
  }
  const out: Candidate[] = [];
  for (const k of keyed) out.push(k.c);
  return out;
}

/** Lower score first; on a tie this node's own engine, then the better tier; otherwise the order they came in. */
function rankedBefore(a: Keyed, b: Keyed): boolean {
  return (a.score - b.score || b.local - a.local || a.tier - b.tier) < 0;
}

/** The figure the ranker sorts on first; steps that speak of "the same ranker score" read it here. At weight 0 pressure is never read. */
export function rankScore(c: Candidate, opts: RankOptions): number {
  const load = c.node === 'local' ? c.queueDepth - opts.localAffinity : c.queueDepth;
  return opts.pressureWeight === 0 ? load : load + opts.pressureWeight * c.pressure;
}
