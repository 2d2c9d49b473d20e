/**
 * "overridden" on the placement records that move candidates back: true when the request was
 * placed on a candidate a rule had put behind the others anyway, because everything ahead of it
 * failed. Decided once, when the row settles, from the node it settled on, so no step needs to
 * know about failover. A rule that lands later adds its own record here beside these.
 */
import type { RoutingLogEntry } from './entry.js';

export function withOverridden(row: RoutingLogEntry): RoutingLogEntry {
  const node = row.direction === 'outbound' ? row.node : null;
  // The common row: nothing was moved back, or nothing was placed; the row is kept as it is.
  if (node === null || (row.promptCeiling === null && row.contextCap === null && row.withheld === null)) return row;
  const ceiling = row.promptCeiling;
  const cap = row.contextCap;
  const withheld = row.withheld;
  const ceilingOverridden = ceiling !== null && ceiling.excluded.some((e) => e.node === node);
  const capOverridden = cap !== null && cap.excluded.some((e) => e.node === node);
  // A withheld peer is named without an engine (the peer picks its own), so its node alone matches.
  const withheldOverridden = withheld !== null && withheld.demoted.some((d) => d.node === node && (d.backend === null || d.backend === row.backend));
  if (
    ceilingOverridden === (ceiling?.overridden ?? false) &&
    capOverridden === (cap?.overridden ?? false) &&
    withheldOverridden === (withheld?.overridden ?? false)
  )
    return row;
  return Object.freeze({
    ...row,
    promptCeiling: ceiling === null ? null : { ...ceiling, overridden: ceilingOverridden },
    contextCap: cap === null ? null : { ...cap, overridden: capOverridden },
    withheld: withheld === null ? null : { ...withheld, overridden: withheldOverridden },
  });
}
