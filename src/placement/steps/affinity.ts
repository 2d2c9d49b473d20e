/**
 * The prefix-affinity step (spec, "Prefix affinity"): the node and engine that last served a
 * session move to the front of the ranked list while their queue, counting the request being
 * placed, is within poolPrefixAffinityMaxInFlight, or, past it, no more than
 * poolPrefixAffinityMargin deeper than the least-loaded other candidate's. It runs before the
 * ceiling and throughput splits and the pin, so each of those still wins over it: a statement
 * about a node outranks a hint about a cache.
 *
 * A preference, never a rule: it reorders inside the tier the remembered candidate already
 * sits in, so it cannot bring back a node the pool excluded, a key nothing is remembered for
 * changes nothing, and every other candidate keeps the ranker's order behind it.
 *
 * Pure: the table lookup happens before placement and arrives in the context.
 */
import type { AffinityRecord } from '../../routing-log/entry.js';
import type { AffinityPlacement } from '../affinity/affinity-table.js';
import type { SessionKeySource } from '../affinity/session-key.js';
import { allCandidates } from '../tiers.js';
import type { Candidate, PlacementStep, Tiers } from '../types.js';

/** What the step reads: null when affinity is off, the route is not judged, or no session was keyed. */
export interface AffinityContext {
  readonly keySource: SessionKeySource;
  /** Where the table last placed this session; null when nothing is remembered (or it expired). */
  readonly remembered: AffinityPlacement | null;
  /** poolPrefixAffinityMaxInFlight, above 0 whenever this context exists. */
  readonly maxInFlight: number;
  /** poolPrefixAffinityMargin. */
  readonly margin: number;
}

export function isRememberedCandidate(c: Candidate, at: AffinityPlacement): boolean {
  return c.node === at.node && c.backendId === at.backendId;
}

/**
 * Whether the remembered candidate qualifies. The limit counts the request being placed, so at
 * 2 an engine with one other request in flight qualifies and one with two does not. The margin
 * only widens a limit that is on, and 0 widens nothing.
 */
export function qualifies(inFlight: number, leastLoadedOther: number | null, maxInFlight: number, margin: number): boolean {
  if (maxInFlight <= 0) return false;
  if (inFlight + 1 <= maxInFlight) return true;
  return margin > 0 && leastLoadedOther !== null && inFlight - leastLoadedOther <= margin;
}

/** The id of the candidate affinity holds in this list (remembered and qualified), or null. Later steps (contention) read it. */
export function affinityHeldId(tiers: Tiers, ctx: AffinityContext | null | undefined): string | null {
  const judged = judge(tiers, ctx);
  return judged !== null && judged.qualified ? judged.candidate.id : null;
}

interface Judged {
  readonly candidate: Candidate;
  readonly qualified: boolean;
  readonly leastLoadedInFlight: number | null;
}

function judge(tiers: Tiers, ctx: AffinityContext | null | undefined): Judged | null {
  if (!ctx || ctx.remembered === null) return null;
  const all = allCandidates(tiers);
  const candidate = all.find((c) => isRememberedCandidate(c, ctx.remembered!));
  if (candidate === undefined) return null;
  const others = all.filter((c) => c.id !== candidate.id).map((c) => c.queueDepth);
  const leastLoadedInFlight = others.length === 0 ? null : Math.min(...others);
  return { candidate, qualified: qualifies(candidate.queueDepth, leastLoadedInFlight, ctx.maxInFlight, ctx.margin), leastLoadedInFlight };
}

/**
 * The record's outcome for the order the walk will actually take: hit when the remembered
 * candidate goes first (whoever put it there), skipped when it is a candidate but not first,
 * miss when nothing remembered is a candidate. Placement calls it again on the final order,
 * after every later step and withholding have had their say.
 */
export function affinityOutcome(record: AffinityRecord, order: readonly Candidate[], remembered: AffinityPlacement | null): AffinityRecord {
  if (record.outcome === 'miss' || remembered === null) return record;
  const first = order[0];
  const outcome = first !== undefined && isRememberedCandidate(first, remembered) ? 'hit' : 'skipped';
  return outcome === record.outcome ? record : { ...record, outcome };
}

export const affinityStep: PlacementStep<'affinity'> = {
  key: 'affinity',
  run(tiers, ctx) {
    const a = ctx.affinity;
    if (!a) return { tiers, record: null };
    // The record is written out key by key, not as { ...base, outcome, ... }: on Node 20 an object
    // literal that starts with a spread and adds keys builds a new hidden class each time, which
    // was ~5% of a short placement at 50 peers (bench/micro/placement.ts).
    const judged = judge(tiers, a);
    if (judged === null) {
      const record: AffinityRecord = {
        key: a.keySource,
        maxInFlight: a.maxInFlight,
        affinityMargin: a.margin,
        outcome: 'miss',
        qualified: false,
        remembered: a.remembered?.node ?? null,
        inFlight: null,
        loadReported: null,
        leastLoadedInFlight: null,
      };
      return { tiers, record };
    }
    const { candidate, qualified, leastLoadedInFlight } = judged;
    const next = qualified ? tiers.map((tier) => (tier.includes(candidate) ? [candidate, ...tier.filter((c) => c !== candidate)] : tier)) : tiers;
    const first = allCandidates(next)[0];
    const record: AffinityRecord = {
      key: a.keySource,
      maxInFlight: a.maxInFlight,
      affinityMargin: a.margin,
      outcome: first === candidate ? 'hit' : 'skipped',
      qualified,
      remembered: candidate.node,
      inFlight: candidate.queueDepth,
      loadReported: candidate.loadReported,
      leastLoadedInFlight,
    };
    return { tiers: next, record };
  },
};
