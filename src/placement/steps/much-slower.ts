/**
 * Much slower than a node as free (spec, "Much slower than a node as free"). Meeting the budget
 * is a low bar, so after every other step, the pin included, each group's first node is judged:
 * every later node in the group predicted at least HUB_POOL_SLOWER_PLACEMENT_RATIO times as fast
 * and HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS sooner, with no more requests in flight (or one more on
 * a node that states a slot free for it), goes ahead of it in the ranker's order, and the new
 * first node is judged the same way. The margin counts from the node the ranker put first, or
 * from the node being passed when that one is idler, never afresh from each move. The rest of
 * the walk is judged the same way, position by position; only the first position's moves are
 * named in slowerDemoted.
 *
 * Limits: both sides need a prediction and the faster one's must not be a missed deadline; a
 * group led by an unmeasured, pinned or affinity-held node is left alone; when every node is
 * predicted to miss the budget nothing moves; prompts under 6,144 estimated tokens move
 * nothing; a withheld engine is never judged first nor brought forward. A
 * local engine contention moved behind the peers sits in a later group than they do (contention
 * splits the group), so this rule, working within groups, never brings it back ahead of them.
 * It writes the throughput record, adding slowerDemoted to what the throughput step wrote.
 */
import type { SlowerDemotion } from '../../routing-log/placement-records.js';
import { LARGE_PROMPT_TOKENS, type ThroughputInput } from '../throughput-input.js';
import type { Candidate, PlacementStep, Tiers } from '../types.js';
import { heldInFront, missesBudget } from './throughput.js';

interface Judge {
  readonly input: ThroughputInput;
  /** Pinned or affinity-held: never judged. */
  readonly held: (c: Candidate) => boolean;
}

function predictedMs(c: Candidate, j: Judge): number | null {
  return j.input.predictions.get(c.id)?.predictedMs ?? null;
}

/**
 * The prediction `f` may go ahead of anyone with, or Infinity: measured by a rate, not a missed
 * deadline. Withheld engines never get here: reorderGroup sets them aside before it judges anyone.
 */
function aheadMs(f: Candidate, j: Judge): number {
  const fp = j.input.predictions.get(f.id);
  return fp !== undefined && !fp.deadline ? fp.predictedMs : Infinity;
}

/** Whether `f` goes ahead of `p`, with `base` the in-flight figure the margin counts from. */
function goesAhead(f: Candidate, p: Candidate, base: number, j: Judge): boolean {
  const pMs = predictedMs(p, j);
  if (pMs === null || !fastEnough(aheadMs(f, j), pMs, j)) return false;
  const slots = j.input.statedSlots.get(f.id);
  return f.queueDepth <= base || (f.queueDepth === base + 1 && slots !== undefined && slots > f.queueDepth);
}

/** The ratio and the floor: `fMs` at least slowerRatio times and slowerFloorMs faster than `pMs`. */
function fastEnough(fMs: number, pMs: number, j: Judge): boolean {
  return !(!(fMs < pMs) || pMs < j.input.slowerRatio * fMs || pMs - fMs < j.input.slowerFloorMs);
}

/** The prediction of the node at a position, when it is judged at all (measured, and no pin or affinity holds it); null otherwise. */
function judgedMs(c: Candidate, j: Judge): number | null {
  return j.held(c) ? null : predictedMs(c, j);
}

/**
 * fastestFrom[k]: the smallest prediction among list[k..] of the candidates that may go ahead
 * (Infinity when none). fastEnough only gets easier as fMs falls (for any ratio of 0 or more;
 * the env refuses one below 1), so when the fastest of the rest is not fast enough for a
 * position, nobody behind it is, and the position is passed over without judging each of the
 * rest. That made the rule linear in the candidates where it was quadratic: 1,225 goesAhead
 * calls at 50 candidates when nothing moves.
 */
function fastestFrom(list: readonly Candidate[], j: Judge): number[] {
  const out = new Array<number>(list.length + 1).fill(Infinity);
  for (let k = list.length - 1; k >= 0; k--) {
    const ms = aheadMs(list[k]!, j);
    // A NaN prediction is never fast enough, so it is left out of the minimum rather than taken as it.
    out[k] = ms < out[k + 1]! ? ms : out[k + 1]!;
  }
  return out;
}

/**
 * Every candidate this rule could judge (none withheld) predicted to miss the budget: the spec's
 * "when every node is predicted to miss, nothing moves". The throughput step then left them as
 * ranked, and a rate read forward past the budget is no better ground for this rule to reorder
 * them on. Where some node meets it, the group of misses behind is judged as any group is.
 */
function everyNodeMisses(tiers: Tiers, input: ThroughputInput): boolean {
  let judged = 0;
  for (const tier of tiers) {
    for (const c of tier) {
      if (input.withheld.has(c.id)) continue;
      const p = input.predictions.get(c.id);
      if (p === undefined || !missesBudget(p, input)) return false;
      judged++;
    }
  }
  return judged > 0;
}

function reorderGroup(tier: readonly Candidate[], j: Judge, demoted: SlowerDemotion[]): Candidate[] {
  const list: Candidate[] = [];
  const withheld: Candidate[] = [];
  // Nothing withheld is the usual case: then the whole group is judged, with no test per candidate.
  if (j.input.withheld.size === 0) list.push(...tier);
  else for (const c of tier) (j.input.withheld.has(c.id) ? withheld : list).push(c);
  if (list.length === 0 || judgedMs(list[0]!, j) === null) return [...tier];
  let fastest = fastestFrom(list, j);
  // Past the last candidate that may go ahead of anyone, no position can change.
  for (let at = 0; at < list.length - 1 && fastest[at + 1]! < Infinity; at++) {
    const rankerFirst = list[at]!;
    // Each move puts a strictly faster node at `at`, so this ends; the bound is belt and braces.
    for (let guard = 0; guard < list.length * list.length; guard++) {
      const p = list[at]!;
      const pMs = judgedMs(p, j);
      if (pMs === null || !fastEnough(fastest[at + 1]!, pMs, j)) break;
      const base = Math.min(rankerFirst.queueDepth, p.queueDepth);
      const rest = list.slice(at + 1);
      const ahead = rest.filter((f) => goesAhead(f, p, base, j));
      if (ahead.length === 0) break;
      const first = ahead[0]!;
      if (at === 0) {
        demoted.push({
          node: p.node,
          backend: p.engine,
          predictedMs: pMs,
          inFlight: p.queueDepth,
          loadReported: p.loadReported,
          fasterNode: first.node,
          fasterBackend: first.engine,
          fasterMs: predictedMs(first, j)!,
          fasterInFlight: first.queueDepth,
          fasterLoadReported: first.loadReported,
        });
      }
      list.splice(at, list.length - at, ...ahead, p, ...rest.filter((c) => !ahead.includes(c)));
      fastest = fastestFrom(list, j);
    }
  }
  return [...list, ...withheld];
}

export const muchSlowerStep: PlacementStep<'throughput'> = {
  key: 'throughput',
  run(tiers, ctx, earlier) {
    const prior = earlier?.throughput ?? null;
    const input = ctx.throughput;
    if (input === undefined || prior === null || input.estimatedTokens < LARGE_PROMPT_TOKENS) return { tiers, record: prior };
    // The pin resolved once per step, not for every position judged: with the one-pass withheld
    // split, 0.96x of a long placement at 50 peers.
    if (everyNodeMisses(tiers, input)) return { tiers, record: { ...prior, slowerDemoted: [] } };
    const j: Judge = { input, held: heldInFront(ctx, input.affinityHeld) };
    const slowerDemoted: SlowerDemotion[] = [];
    const next = tiers.map((tier) => reorderGroup(tier, j, slowerDemoted));
    return { tiers: next as Tiers, record: { ...prior, slowerDemoted } };
  },
};
