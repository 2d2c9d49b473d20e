/**
 * Prompt ceilings (spec, "Prompt ceilings"): a node states the largest prompt it should serve
 * for the pool while another node can take it. A candidate whose node's ceiling is below the
 * request's estimate moves behind the candidates of its group that are under theirs; both
 * halves keep the order they had. It is a preference about prompt size, never a refusal: the
 * node stays in the failover walk, and a group that is all over its ceilings stays as it was.
 *
 * Why it exists: on 2026-09-17 a node serving qwen3-coder:30b on CPU answered a ~10.6k-token
 * turn in 103 s and gave no first byte for a ~46k-token one inside its 922 s budget, where a
 * GPU node served the same turn in 268 s. Pins cannot say this: they never look at the request.
 */
import type { PromptCeilingRecord } from '../../routing-log/entry.js';
import { allCandidates, distinctNodes, splitEachTier } from '../tiers.js';
import type { Candidate, PlacementContext, PlacementStep } from '../types.js';

function ceilingOf(c: Candidate, ctx: PlacementContext): number | null {
  return ctx.limits.get(c.node)?.maxPromptTokens ?? null;
}

export const promptCeilingStep: PlacementStep<'promptCeiling'> = {
  key: 'promptCeiling',
  run(tiers, ctx) {
    // Embeddings and the /api/show lookup carry no prompt worth judging; the row says so with null.
    if (!ctx.route.judgesPrompt) return { tiers, record: null };
    const all = allCandidates(tiers);
    if (!all.some((c) => ceilingOf(c, ctx) !== null)) return { tiers, record: null };
    const over = (c: Candidate) => {
      const ceiling = ceilingOf(c, ctx);
      return ceiling !== null && ceiling < ctx.estimatedTokens;
    };
    // Every candidate over its ceiling: a slow answer beats a 502, and the ranker's order stands.
    const { tiers: next, moved } = all.every(over) ? { tiers, moved: [] } : splitEachTier(tiers, over);
    const record: PromptCeilingRecord = {
      estimatedTokens: ctx.estimatedTokens,
      excluded: distinctNodes(moved).map((node) => ({ node, maxPromptTokens: ctx.limits.get(node)!.maxPromptTokens! })),
      overridden: false,
    };
    return { tiers: next, record };
  },
};
