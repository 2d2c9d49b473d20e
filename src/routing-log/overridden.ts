/**
 * "overridden" on every placement record that moves candidates back (the prompt ceiling, the
 * context cap, slots, throughput, contention, withholding): true when the request was placed on a
 * candidate that record put behind others anyway, because everything ahead of it failed (spec,
 * Slot-aware placement, "Demoted, never removed": the row must not read as though that node was
 * passed over). One rule for all six, decided once, as the row settles, from the node and engine it
 * settled on: the one that answered, gave the verdict, or was being waited on when the caller hung
 * up. A walk that ran out names no node, and an inbound row's node is the sender, so neither is
 * marked. No step needs to know about failover, and the row is written once.
 */
import type { RoutingLogEntry } from './entry.js';

/** The node name a row and a record give this Hub's own engines (placement/candidates.ts). */
const LOCAL_NODE = 'local';

/**
 * A record's (node, engine) entry names where the row settled; a peer picks its own engine, so it
 * matches by node alone, as does an entry naming none. A local engine matches by its id, not its
 * kind: OLLAMA_URL takes a list, and by kind a row served by ollama-2 read as placed anyway on a
 * withheld ollama-1 (found by an audit).
 */
export function names(entry: { readonly node: string; readonly backendId: string | null }, node: string, backendId: string | null): boolean {
  return entry.node === node && (entry.backendId === null || node !== LOCAL_NODE || entry.backendId === backendId);
}

/** The record with `overridden` set to `value`: the same object when it already says so. */
function marked<R extends { readonly overridden: boolean }>(record: R | null, value: boolean): R | null {
  return record === null || record.overridden === value ? record : { ...record, overridden: value };
}

export function withOverridden(row: RoutingLogEntry): RoutingLogEntry {
  const node = row.direction === 'outbound' ? row.node : null;
  const { promptCeiling: ceiling, contextCap: cap, slots, throughput, contention, withheld } = row;
  // The common row: nothing was moved back, or nothing was placed; the row is kept as it is.
  if (node === null || (ceiling === null && cap === null && slots === null && throughput === null && contention === null && withheld === null)) return row;
  const backendId = row.backendId;
  const next = {
    promptCeiling: marked(ceiling, ceiling !== null && ceiling.excluded.some((e) => e.node === node)),
    contextCap: marked(cap, cap !== null && cap.excluded.some((e) => e.node === node)),
    slots: marked(slots, slots !== null && slots.demoted.some((e) => names(e, node, backendId))),
    throughput: marked(throughput, throughput !== null && throughput.estimates.some((e) => e.moved && names(e, node, backendId))),
    contention: marked(contention, contention !== null && contention.demoted.some((d) => d.behind.length > 0 && names(d, node, backendId))),
    withheld: marked(withheld, withheld !== null && withheld.demoted.some((d) => names(d, node, backendId))),
  };
  if (
    next.promptCeiling === ceiling &&
    next.contextCap === cap &&
    next.slots === slots &&
    next.throughput === throughput &&
    next.contention === contention &&
    next.withheld === withheld
  )
    return row;
  return Object.freeze({ ...row, ...next });
}
