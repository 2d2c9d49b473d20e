/**
 * place(): runs the placement steps over the ranked list, in precedence order, as tiers.
 * The runner checks after every step that nothing was lost and nothing moved to an earlier
 * tier, so precedence holds by construction. Ceilings, context caps and affinity plug in
 * ahead of the pin as they land.
 */
import { NULL_PLACEMENT_RECORDS, type PlacementRecords } from '../routing-log/entry.js';
import { pinStep } from './steps/pin.js';
import { slotsStep } from './steps/slots.js';
import { throughputStep } from './steps/throughput.js';
import { contentionStep } from './steps/contention.js';
import { muchSlowerStep } from './steps/much-slower.js';
import type { Candidate, Placement, PlacementContext, PlacementStep, Tiers } from './types.js';

/**
 * The steps in the order they run. The pin comes after every rule that can push a
 * candidate into a later tier (a prompt ceiling, a context cap, full slots, withholding) has
 * already done so, and the pin then reorders inside each finished tier. That is what keeps an
 * operator's preference from outranking a rule about the request itself: a pinned node over
 * its ceiling still goes behind the nodes under it, but leads the group it was put in. Only
 * the much-slower rule follows it: it judges the node each group would try first, pin
 * included, and leaves a pinned first node where it is.
 */
export const STEPS: readonly PlacementStep[] = [
  // Slots sit inside the statements (ceiling, cap) and outside throughput: a full engine queues
  // the whole request, a slow one only reads it slowly.
  slotsStep,
  throughputStep,
  // Inside throughput: a contended engine may only be waiting out a turn that is nearly done.
  contentionStep,
  pinStep,
  // Over each group's first node and the rest of the walk, after the pin; withheld engines go last after it.
  muchSlowerStep,
];

export function place(ranked: readonly Candidate[], ctx: PlacementContext, steps: readonly PlacementStep[] = STEPS): Placement {
  let tiers: Tiers = [ranked];
  const records: Record<string, unknown> = { ...NULL_PLACEMENT_RECORDS };
  for (const step of steps) {
    const next = step.run(tiers, ctx, records as unknown as PlacementRecords);
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
