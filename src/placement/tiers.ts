/**
 * List surgery the placement steps share. Each function only ever moves candidates back, so a
 * step built from them passes the runner's check (pipeline.ts, assertOnlyDemoted) by construction.
 */
import type { Candidate, Tiers } from './types.js';

/**
 * Splits every tier in two: the candidates `behind` does not flag keep their order and their
 * place, and the flagged ones follow them as a new tier of their own, in the order they arrived.
 * A tier with nothing flagged, or with everything flagged, is left whole: a split moves a
 * candidate behind others in its group, and there is nothing to move it behind when the whole
 * group is flagged. A split never makes an empty tier (an empty tier given is passed through as it is).
 */
export function splitEachTier(tiers: Tiers, behind: (c: Candidate) => boolean): { tiers: Tiers; moved: readonly Candidate[] } {
  const moved: Candidate[] = [];
  const next: (readonly Candidate[])[] = [];
  for (const tier of tiers) {
    const back = tier.filter(behind);
    if (back.length === 0 || back.length === tier.length) {
      next.push(tier);
      continue;
    }
    next.push(
      tier.filter((c) => !behind(c)),
      back,
    );
    moved.push(...back);
  }
  return { tiers: moved.length === 0 ? tiers : next, moved };
}

/** Moves the flagged candidates, from whatever tier, into one new tier behind every other candidate. */
export function behindEveryone(tiers: Tiers, flagged: (c: Candidate) => boolean): { tiers: Tiers; moved: readonly Candidate[] } {
  const moved = tiers.flat().filter(flagged);
  if (moved.length === 0) return { tiers, moved };
  const kept = tiers.map((tier) => tier.filter((c) => !flagged(c))).filter((tier) => tier.length > 0);
  return { tiers: [...kept, moved], moved };
}

/** Each node once, in the order its first candidate appears. */
export function distinctNodes(candidates: readonly Candidate[]): string[] {
  return [...new Set(candidates.map((c) => c.node))];
}
