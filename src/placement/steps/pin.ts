/**
 * The pin step: an operator's preference for where a model runs. It only ever prefers. The
 * pinned node's candidates move to the front of each tier they already sit in, everything
 * else keeps the ranker's order behind them, and the failover walk is the same list in a
 * different order. A pin cannot bring back a node that candidates() left out, so a target that
 * is down, disabled, unpaired or without the model simply matches nothing and the step
 * records that it did not apply.
 */
import type { RoutingPin } from '../../config/settings-schema.js';
import type { PinRecord } from '../../routing-log/entry.js';
import { normalizePeerName } from '../../tailnet/peer-name.js';
import type { Candidate, PlacementStep, Tiers } from '../types.js';

/** The pin target that means this node's own engines. */
export const LOCAL_PIN_TARGET = 'local';

/**
 * The pin that governs `model`: its own pin when one names it exactly (byte for byte, the way
 * candidate matching reads engine inventories), else the default pin, else none. The two never
 * combine: a model pin replaces the default outright.
 */
export function resolvePin(pins: readonly RoutingPin[], model: string): RoutingPin | null {
  return pins.find((p) => p.scope === 'model' && p.model === model) ?? pins.find((p) => p.scope === 'default') ?? null;
}

/**
 * The node a pin target names, in the form Candidate.node uses: 'local', or a peer's name
 * lower-cased without a trailing dot. A target that is not a valid peer name is compared in
 * lower case as written, and then simply never matches.
 */
export function pinTargetNode(target: string): string {
  const trimmed = target.trim();
  if (trimmed.toLowerCase() === LOCAL_PIN_TARGET) return LOCAL_PIN_TARGET;
  const name = normalizePeerName(trimmed);
  return name.ok ? name.name : trimmed.toLowerCase();
}

/** Each tier with `node`'s candidates first, both groups in the order they arrived. */
function preferWithinTiers(tiers: Tiers, node: string): { tiers: Tiers; moved: number } {
  let moved = 0;
  const next = tiers.map((tier) => {
    const pinned: Candidate[] = [];
    const rest: Candidate[] = [];
    for (const c of tier) (c.node.toLowerCase() === node ? pinned : rest).push(c);
    moved += pinned.length;
    return pinned.length === 0 ? tier : [...pinned, ...rest];
  });
  return { tiers: moved === 0 ? tiers : next, moved };
}

export const pinStep: PlacementStep<'pin'> = {
  key: 'pin',
  run(tiers, ctx) {
    const pin = resolvePin(ctx.pins, ctx.model);
    if (pin === null) return { tiers, record: null };
    const { tiers: next, moved } = preferWithinTiers(tiers, pinTargetNode(pin.target));
    const record: PinRecord = { scope: pin.scope, model: pin.scope === 'model' ? pin.model : null, target: pin.target, applied: moved > 0 };
    return { tiers: next, record };
  },
};
