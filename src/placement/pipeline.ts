/**
 * place(): runs the placement steps over the ranked list, in precedence order, as tiers.
 * The runner checks after every step that nothing was lost and nothing moved to an earlier
 * tier, so precedence holds by construction. The single-node build has no steps yet; the
 * pooled-routing rules (pins, ceilings, slots, throughput, contention, affinity) plug in here.
 */
import { NULL_PLACEMENT_RECORDS, type PlacementRecords } from '../routing-log/entry.js';
import type { Candidate, Placement, PlacementContext, PlacementStep, Tiers } from './types.js';

export const STEPS: readonly PlacementStep[] = [];

export function place(ranked: readonly Candidate[], ctx: PlacementContext, steps: readonly PlacementStep[] = STEPS): Placement {
  let tiers: Tiers = [ranked];
  const records: Record<string, unknown> = { ...NULL_PLACEMENT_RECORDS };
  for (const step of steps) {
    const next = step.run(tiers, ctx);
    assertOnlyDemoted(tiers, next.tiers, step.key);
    tiers = next.tiers;
    records[step.key] = next.record;
  }
  return { order: tiers.flat(), records: records as unknown as PlacementRecords };
}

/** Throws when a step dropped, added or promoted a candidate: a bug in the step, never a runtime condition. */
export function assertOnlyDemoted(before: Tiers, after: Tiers, stepKey: string): void {
  const tierOf = (tiers: Tiers) => new Map(tiers.flatMap((tier, i) => tier.map((c) => [c.id, i] as const)));
  const was = tierOf(before);
  const now = tierOf(after);
  if (was.size !== now.size) throw new Error(`placement step ${stepKey} changed the number of candidates`);
  for (const [id, tier] of was) {
    const moved = now.get(id);
    if (moved === undefined) throw new Error(`placement step ${stepKey} dropped candidate ${id}`);
    if (moved < tier) throw new Error(`placement step ${stepKey} moved candidate ${id} to an earlier tier`);
  }
}
