/**
 * place(): runs the placement steps over the ranked list, in precedence order, as tiers.
 * The runner checks after every step that nothing was lost, nothing was added and nothing moved
 * to an earlier tier, so precedence holds by construction: a step can only ever split a group
 * or reorder inside one, and what an earlier step put behind stays behind.
 */
import { nullPlacementRecords, type PlacementRecords } from '../routing-log/entry.js';
import { contextCapStep } from './steps/context-cap.js';
import { pinStep } from './steps/pin.js';
import { promptCeilingStep } from './steps/prompt-ceiling.js';
import { withheldStep } from './steps/withheld.js';
import { slotsStep } from './steps/slots.js';
import { throughputStep } from './steps/throughput.js';
import { contentionStep } from './steps/contention.js';
import { muchSlowerStep } from './steps/much-slower.js';
import { affinityStep } from './steps/affinity.js';
import { allCandidates } from './tiers.js';
import type { Candidate, Placement, PlacementContext, PlacementStep, Tiers } from './types.js';

/**
 * The steps in the order they run (spec: the ranking bullet of "How it fits together", and the
 * "where it sits" paragraph of each rule). Operator statements split the list first, inferences
 * split inside those groups, and the pin then reorders inside every finished group, so a pin at a
 * node over its cap, its ceiling or its slots leads only the group it was put in.
 */
export const STEPS: readonly PlacementStep[] = [
  // A hint, first: a session's warm engine to the front before any split, so every split below still wins over it.
  affinityStep,
  // Bad-output engines into a last group of their own, before any rule weighs them: a rule that
  // judges a group (is every engine full? is any node under its ceiling? measured to meet the
  // budget?) must not count an engine that goes last whatever it finds, or its record says a
  // node gave way to one it was then placed ahead of (audit, 2026-12-07). The spec puts this
  // after the pin and the local head start: the same order, since the pin only reorders inside
  // a group and the head start is the ranker's.
  withheldStep,
  contextCapStep, // statement: the window the request asks for is over the node's cap (outermost)
  promptCeilingStep, // statement: the prompt estimate is over the node's ceiling
  // Slots sit inside the statements (ceiling, cap) and outside throughput: a full engine queues
  // the whole request, a slow one only reads it slowly.
  slotsStep,
  throughputStep,
  // Inside throughput: a contended engine may only be waiting out a turn that is nearly done.
  contentionStep,
  pinStep, // statement, but a preference: reorders within each finished group
  // Over each group's first node and the rest of the walk, after the pin and after withholding, so
  // it judges the first engine not withheld and never brings a withheld one forward.
  muchSlowerStep,
];

export function place(ranked: readonly Candidate[], ctx: PlacementContext, steps: readonly PlacementStep[] = STEPS): Placement {
  let tiers: Tiers = [ranked];
  const records: Record<keyof PlacementRecords, unknown> = nullPlacementRecords();
  for (const step of steps) {
    const next = step.run(tiers, ctx, records as unknown as PlacementRecords);
    assertOnlyDemoted(tiers, next.tiers, step.key);
    tiers = next.tiers;
    records[step.key] = next.record;
  }
  return { order: allCandidates(tiers), records: records as unknown as PlacementRecords };
}

/**
 * Throws when a step dropped, added or promoted a candidate: a bug in the step, never a runtime
 * condition.
 *
 * "Promoted" is judged by who is ahead of whom, not by tier numbers: when a step moves the only
 * candidates of an early tier behind everyone (withholding does), every later tier's number
 * drops by one without anyone having gained a place. The rule: if x was strictly ahead of y and
 * no longer is, x must have been demoted, meaning someone who was not ahead of x now is. Linear
 * in the candidates, since this runs on every request (bench/fleet found the tier-number check
 * throwing on a withheld engine that emptied the first tier).
 */
export function assertOnlyDemoted(before: Tiers, after: Tiers, stepKey: string): void {
  // Most steps leave the tiers as they were (their rule does not apply to this request) and hand
  // back the same array: nothing moved, so nothing to check. At 50 candidates the check on every
  // one of the nine steps was ~15% of placement's CPU (bench/pool-scale, 2026-12-02).
  if (before === after || sameTiers(before, after)) return;
  // Plain loops and one Map: the same check written with flatMap, reduce and flat() cost 13 µs at
  // 50 candidates, this 3.5 (the check alone in a loop, one step moving 25 of 50, 2026-12-02).
  const now = new Map<string, number>();
  for (let i = 0; i < after.length; i += 1) for (const c of after[i]!) now.set(c.id, i);
  let count = 0;
  for (const tier of before) count += tier.length;
  if (count !== now.size) throw new Error(`placement step ${stepKey} changed the number of candidates`);
  for (const tier of before) {
    for (const c of tier) if (!now.has(c.id)) throw new Error(`placement step ${stepKey} dropped candidate ${c.id}`);
  }

  // fromTier[i]: the earliest tier after the step among the candidates in tiers i.. before it.
  const fromTier = new Array<number>(before.length + 1).fill(Infinity);
  for (let i = before.length - 1; i >= 0; i -= 1) {
    let earliest = fromTier[i + 1]!;
    for (const c of before[i]!) earliest = Math.min(earliest, now.get(c.id)!);
    fromTier[i] = earliest;
  }
  for (let i = 0; i < before.length; i += 1) {
    for (const x of before[i]!) {
      const tierOfX = now.get(x.id)!;
      const demoted = fromTier[i]! < tierOfX;
      if (demoted || fromTier[i + 1]! > tierOfX) continue;
      const caughtUp = before
        .slice(i + 1)
        .flat()
        .find((y) => now.get(y.id)! <= tierOfX)!;
      throw new Error(`placement step ${stepKey} moved candidate ${caughtUp.id} to an earlier tier, level with or ahead of ${x.id}`);
    }
  }
}

/**
 * Whether the step handed back the very same candidates in the same tiers, in new arrays: the
 * throughput step and the much-slower rule rebuild the list on every large request and mostly
 * move nobody, and nothing that moved nobody can have promoted anyone.
 */
function sameTiers(before: Tiers, after: Tiers): boolean {
  if (before.length !== after.length) return false;
  for (let i = 0; i < before.length; i += 1) {
    const b = before[i]!;
    const a = after[i]!;
    if (a.length !== b.length) return false;
    for (let j = 0; j < b.length; j += 1) if (a[j] !== b[j]) return false;
  }
  return true;
}
