/**
 * Withholding as a step (spec, "A 200 that is not an answer"): an engine that answered with
 * unusable output twice within five minutes goes behind every other candidate, whatever group
 * it was in, so retries go elsewhere; it is still asked when everything else has failed. Made a
 * step rather than a pass after placement so the routing-log row says why the node the ranker
 * put first was skipped.
 *
 * It moves the withheld engines into a tier of their own at the very end, before the rules that
 * weigh candidates against each other run (pipeline.ts). Because a later step only reorders
 * inside a tier, a withheld engine is never brought forward again, and no rule judging the
 * engines ahead of it counts it among them.
 */
import type { WithheldRecord } from '../../routing-log/entry.js';
import { behindEveryone } from '../tiers.js';
import type { PlacementStep } from '../types.js';

export const withheldStep: PlacementStep<'withheld'> = {
  key: 'withheld',
  run(tiers, ctx) {
    if (ctx.withheld.size === 0) return { tiers, record: null };
    const { tiers: next, moved } = behindEveryone(tiers, (c) => ctx.withheld.has(c.id));
    if (moved.length === 0) return { tiers, record: null };
    const record: WithheldRecord = {
      demoted: moved.map((c) => {
        const fact = ctx.withheld.get(c.id)!;
        return { node: c.node, backend: c.engine, backendId: c.backendId, until: fact.until, reason: fact.reason };
      }),
      overridden: false,
    };
    return { tiers: next, record };
  },
};
