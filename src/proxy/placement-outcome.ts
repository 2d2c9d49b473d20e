/**
 * "Overridden", decided once the walk is over: a demotion record says the request was placed
 * on a node it demoted anyway when that node is the one that served (spec: "the routing log
 * then says the demotion was overridden rather than claiming the node was skipped"). The
 * decision is pure (`overriddenPatch`); the observer applies it to the settled row.
 */
import type { Candidate } from '../placement/types.js';
import type { RoutingLogEntry } from '../routing-log/entry.js';
import type { WalkObserver, WalkSettled } from './walk-types.js';

type Overridable = Pick<RoutingLogEntry, 'slots' | 'throughput' | 'contention'>;

/** Whether a record's (node, backend) names the candidate that served; a peer's backend is what it answered with, so a null backend matches by node. */
function names(entry: { node: string; backend: string | null }, served: Candidate): boolean {
  return entry.node === served.node && (entry.backend === null || served.peerId !== null || entry.backend === served.engine);
}

/** The records that change because `served` answered; empty when none does. */
export function overriddenPatch(row: Overridable, served: Candidate): Partial<Overridable> {
  const patch: { -readonly [K in keyof Overridable]?: Overridable[K] } = {};
  if (row.slots !== null && row.slots.full.some((e) => names(e, served))) patch.slots = { ...row.slots, overridden: true };
  if (row.throughput !== null && row.throughput.estimates.some((e) => e.slow && names(e, served))) patch.throughput = { ...row.throughput, overridden: true };
  if (row.contention !== null && row.contention.demoted.some((d) => d.behind.length > 0 && names(d, served)))
    patch.contention = { ...row.contention, overridden: true };
  return patch;
}

export interface RowAccess {
  get(id: string): RoutingLogEntry | undefined;
  update(id: string, patch: Partial<RoutingLogEntry>): unknown;
}

export class PlacementOutcome implements WalkObserver {
  readonly #rows: RowAccess;

  constructor(rows: RowAccess) {
    this.#rows = rows;
  }

  onSettled(s: WalkSettled): void {
    if (s.served === null || s.end !== 'committed') return;
    const row = this.#rows.get(s.requestId);
    if (row === undefined || row.direction !== 'outbound') return;
    const patch = overriddenPatch(row, s.served);
    if (Object.keys(patch).length > 0) this.#rows.update(s.requestId, patch);
  }
}
