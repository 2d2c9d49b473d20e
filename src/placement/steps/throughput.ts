/**
 * Throughput-aware placement (spec, "Throughput-aware placement"), inside each group the
 * ceilings and slots left:
 * - a candidate predicted to miss the request's budget moves behind every one that is not (a
 *   missed deadline predicted at exactly the budget counts as a miss); a group where every
 *   candidate is predicted to miss stays as ranked;
 * - for a prompt of 6,144 estimated tokens or more, an unmeasured peer moves to just behind the
 *   last candidate the ranker scored the same that is measured to meet the budget (a missed
 *   deadline never is), and one advertising hardwareTier cpu-only or insufficient also behind the
 *   other unmeasured peers of that score;
 *   never behind a busier node, and not for a local engine contention is about to move;
 * - this node's own engines, the engine prefix affinity holds and a pinned node keep their place.
 * Absent input (a route it does not judge, HUB_POOL_THROUGHPUT_PLACEMENT=off, a prompt under
 * 4,096 tokens) records null; so does a request no candidate had evidence for.
 */
import type { ThroughputEstimate, ThroughputRecord, UnmeasuredDeferral } from '../../routing-log/placement-records.js';
import { LARGE_PROMPT_TOKENS, type ThroughputInput } from '../throughput-input.js';
import type { Prediction } from '../throughput/predict.js';
import type { Candidate, PlacementContext, PlacementStep, Tiers } from '../types.js';
import { pinTargetNode, resolvePin } from './pin.js';
import { unjoinable, windowOn } from './contention.js';

const CPU_PRIORS: ReadonlySet<string> = new Set(['cpu-only', 'insufficient']);

/** The estimate row for one candidate, or null when it is unmeasured. */
export function estimateOf(c: Candidate, input: ThroughputInput): ThroughputEstimate | null {
  const p = input.predictions.get(c.id);
  if (p === undefined) return null;
  return {
    node: c.node,
    backend: c.engine,
    backendId: c.backendId,
    tokensPerSec: Math.round(p.tokensPerSec * 10) / 10,
    fromPromptTokens: p.fromPromptTokens,
    extrapolated: p.extrapolated,
    predictedMs: p.predictedMs,
    source: p.source,
    deadline: p.deadline,
    slow: missesBudget(p, input),
    moved: false,
  };
}

/**
 * The test for a candidate a statement or a held prefix keeps in front: the pinned node's, or the
 * one prefix affinity holds. The pin is resolved once per step rather than per candidate.
 */
export function heldInFront(ctx: PlacementContext, affinityHeld: string | null): (c: Candidate) => boolean {
  const pin = resolvePin(ctx.pins, ctx.model);
  const pinned = pin === null ? null : pinTargetNode(pin.target);
  return (c) => c.id === affinityHeld || (pinned !== null && c.node.toLowerCase() === pinned);
}

/** Candidates that keep their place unmeasured: this node's engines (its evidence dies with a restart, its prefix cache does not), and the held ones. */
function keepsPlace(c: Candidate, held: (c: Candidate) => boolean): boolean {
  return c.peerId === null || held(c);
}

/** A local engine contention is about to move behind the peers (and affinity does not hold). */
function contended(c: Candidate, ctx: PlacementContext, affinityHeld: string | null): boolean {
  const input = ctx.contention;
  if (input === undefined || c.backendId === null || c.engine === null || c.node !== 'local' || c.id === affinityHeld) return false;
  return unjoinable(input.busy.get(c.backendId) ?? [], ctx.model, windowOn(input, c.backendId), c.engine).length > 0;
}

/**
 * The rule's one comparison. A timed prediction exactly at the budget meets it. A missed
 * deadline is a lower bound: its reading is tokens / budget, so the same prompt again predicts
 * exactly the budget it already ran out of, and that is a miss (spec, "What is measured").
 */
export function missesBudget(p: Prediction, input: ThroughputInput): boolean {
  return p.deadline ? p.predictedMs >= input.budgetMs : p.predictedMs > input.budgetMs;
}

/**
 * Measured to meet the budget, the only evidence an unmeasured peer gives way to: a missed
 * deadline under the budget says only "at least this slow" (spec, "Much slower than a node as
 * free": a lower bound), and a local engine contention is about to move will not go first.
 */
function measuredToMeet(c: Candidate, ctx: PlacementContext, input: ThroughputInput): boolean {
  const p = input.predictions.get(c.id);
  return p !== undefined && !p.deadline && !missesBudget(p, input) && !contended(c, ctx, input.affinityHeld);
}

/** Unmeasured, and free to move: not timed, not this node's engine, not held in front. */
function deferrable(c: Candidate, input: ThroughputInput, held: (c: Candidate) => boolean): boolean {
  return !input.predictions.has(c.id) && !keepsPlace(c, held);
}

const cpuPrior = (c: Candidate): boolean => c.hardwareTier !== null && CPU_PRIORS.has(c.hardwareTier);

/**
 * One run of candidates the ranker scored the same. Each unmeasured peer that stood ahead of the
 * run's last candidate measured to meet the budget moves to just behind it, and no further: a
 * missed deadline or an unmeasured local engine after it holds nobody back. A cpu-only prior
 * also goes behind the run's last other unmeasured peer. A run with nothing measured to meet the
 * budget stays as ranked.
 */
function deferWithinRun(
  run: readonly Candidate[],
  ctx: PlacementContext,
  input: ThroughputInput,
  held: (c: Candidate) => boolean,
  unmeasured: UnmeasuredDeferral[],
): readonly Candidate[] {
  let lastMeet = -1;
  let lastUnknown = -1;
  for (let k = 0; k < run.length; k++) {
    const c = run[k]!;
    if (measuredToMeet(c, ctx, input)) lastMeet = k;
    else if (deferrable(c, input, held) && !cpuPrior(c)) lastUnknown = k;
  }
  if (lastMeet < 0) return run;
  const cpuAnchor = Math.max(lastMeet, lastUnknown);
  const out: Candidate[] = [];
  const unknown: Candidate[] = [];
  const cpuOnly: Candidate[] = [];
  // The record lists the peers that moved behind a measured node, not the cpu-only ones that only
  // went behind another unmeasured peer.
  const movedCpuOnly: UnmeasuredDeferral[] = [];
  for (let k = 0; k < run.length; k++) {
    const c = run[k]!;
    if (deferrable(c, input, held)) {
      if (cpuPrior(c) && k < cpuAnchor) {
        cpuOnly.push(c);
        if (k < lastMeet) movedCpuOnly.push({ node: c.node, backend: c.engine, prior: 'cpu-only' });
        continue;
      }
      if (!cpuPrior(c) && k < lastMeet) {
        unknown.push(c);
        unmeasured.push({ node: c.node, backend: c.engine, prior: 'unknown' });
        continue;
      }
    }
    out.push(c);
    if (k === lastMeet) out.push(...unknown);
    if (k === cpuAnchor) out.push(...cpuOnly);
  }
  unmeasured.push(...movedCpuOnly);
  return out;
}

function deferWithinTies(
  tier: readonly Candidate[],
  ctx: PlacementContext,
  input: ThroughputInput,
  held: (c: Candidate) => boolean,
  unmeasured: UnmeasuredDeferral[],
): Candidate[] {
  const out: Candidate[] = [];
  let i = 0;
  while (i < tier.length) {
    const score = input.score(tier[i]!);
    let j = i;
    while (j < tier.length && input.score(tier[j]!) === score) j++;
    out.push(...deferWithinRun(tier.slice(i, j), ctx, input, held, unmeasured));
    i = j;
  }
  return out;
}

export const throughputStep: PlacementStep<'throughput'> = {
  key: 'throughput',
  run(tiers, ctx) {
    const input = ctx.throughput;
    if (input === undefined) return { tiers, record: null };
    // One lookup of each candidate's prediction: the estimate row, built once, also says whether
    // it is slow, so each group is split in the same pass (a group where every candidate is slow
    // stays as ranked).
    const estimates: ThroughputEstimate[] = [];
    const splits: { readonly ahead: Candidate[]; readonly behind: Candidate[] }[] = [];
    for (const tier of tiers) {
      const ahead: Candidate[] = [];
      const behind: Candidate[] = [];
      const first = estimates.length;
      for (const c of tier) {
        const e = estimateOf(c, input);
        if (e !== null) estimates.push(e);
        (e !== null && e.slow ? behind : ahead).push(c);
      }
      // The slow ones of a group with something else to go first are the ones this step moves.
      if (ahead.length > 0 && behind.length > 0)
        for (let k = first; k < estimates.length; k++) if (estimates[k]!.slow) estimates[k] = { ...estimates[k]!, moved: true };
      splits.push({ ahead, behind });
    }
    if (estimates.length === 0) return { tiers, record: null };
    const unmeasured: UnmeasuredDeferral[] = [];
    const held = heldInFront(ctx, input.affinityHeld);
    const next: Candidate[][] = [];
    for (const { ahead, behind } of splits) {
      const allSlow = ahead.length === 0;
      const kept = allSlow ? behind : ahead;
      next.push(input.estimatedTokens >= LARGE_PROMPT_TOKENS ? deferWithinTies(kept, ctx, input, held, unmeasured) : kept);
      if (!allSlow && behind.length > 0) next.push(behind);
    }
    const record: ThroughputRecord = {
      estimatedTokens: input.estimatedTokens,
      budgetMs: input.budgetMs,
      estimates,
      unmeasured,
      slowerDemoted: [],
      overridden: false,
    };
    return { tiers: next as Tiers, record };
  },
};
