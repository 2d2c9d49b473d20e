/**
 * Context caps (spec, "Context caps: the window an app asks for is the window the engine runs"):
 * a node states the window its engine runs (OLLAMA_CONTEXT_LENGTH). A candidate capped below the
 * window the request asks for moves behind the candidates of its group that can take it: a
 * request at another window makes Ollama reload the model, and a prompt over the default window
 * is truncated. Never removed: when everything that can take the window fails, the walk still
 * reaches it, and when every candidate is capped below the window nothing moves.
 *
 * The outermost split of the pipeline: a node over its cap reloads or truncates, where a node
 * over its ceiling is merely slow, so no later step can bring a capped node back ahead.
 */
import type { ContextCapRecord } from '../../routing-log/entry.js';
import { allCandidates, distinctNodes, splitEachTier } from '../tiers.js';
import type { Candidate, PlacementContext, PlacementStep } from '../types.js';

function capOf(c: Candidate, ctx: PlacementContext): number | null {
  return ctx.limits.get(c.node)?.maxNumCtx ?? null;
}

export const contextCapStep: PlacementStep<'contextCap'> = {
  key: 'contextCap',
  run(tiers, ctx) {
    if (!ctx.route.judgesPrompt) return { tiers, record: null };
    const all = allCandidates(tiers);
    if (!all.some((c) => capOf(c, ctx) !== null)) return { tiers, record: null };
    // An uncapped node takes any window; a capped one takes windows up to its cap.
    const capped = (c: Candidate) => {
      const cap = capOf(c, ctx);
      return cap !== null && cap < ctx.window.numCtx;
    };
    const { tiers: next, moved } = all.every(capped) ? { tiers, moved: [] } : splitEachTier(tiers, capped);
    const record: ContextCapRecord = {
      numCtx: ctx.window.numCtx,
      source: ctx.window.source,
      excluded: distinctNodes(moved).map((node) => ({ node, maxNumCtx: ctx.limits.get(node)!.maxNumCtx! })),
      overridden: false,
    };
    return { tiers: next, record };
  },
};
