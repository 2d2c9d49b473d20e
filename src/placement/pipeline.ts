/**
 * place(): runs the placement steps over the ranked list, in precedence order, as tiers.
 * The runner checks after every step that nothing was lost and nothing moved to an earlier
 * tier, so precedence holds by construction. The remaining pooled-routing rules (ceilings,
 * context caps, slots, throughput, contention, affinity) plug in ahead of the pin.
 */
import { NULL_PLACEMENT_RECORDS, type PlacementRecords } from '../routing-log/entry.js';
import { pinStep } from './steps/pin.js';
import { affinityStep } from './steps/affinity.js';
import type { Candidate, Placement, PlacementContext, PlacementStep, Tiers } from './types.js';

/**
 * The steps in the order they run. The pin stays last on purpose: every rule that can push a
 * candidate into a later tier (a prompt ceiling, a context cap, full slots, withholding) has
 * already done so, and the pin then reorders inside each finished tier. That is what keeps an
 * operator's preference from outranking a rule about the request itself: a pinned node over
 * its ceiling still goes behind the nodes under it, but leads the group it was put in.
 */
export const STEPS: readonly PlacementStep[] = [affinityStep, pinStep];

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
