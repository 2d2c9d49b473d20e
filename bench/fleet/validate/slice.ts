/**
 * A short slice of the benchmark's trace for the validation run: the same seeded trace
 * buildTrace makes for the full fleet, cut to what three real Hubs can replay in a few minutes.
 * Sessions that start inside the window are kept with their first turns; chat inside the window
 * is kept; embeddings are dropped (they run on their own model beside the chat one in both the
 * simulator and src/sim, so they add HTTP traffic and no placement worth comparing). An entry node
 * that is not in the slice's fleet is mapped onto one that is, the same way every time.
 */
import type { Session, Trace, TraceRequest } from '../trace.js';

export interface SliceSpec {
  /** The nodes of the three-node fleet, in order. */
  readonly nodes: readonly string[];
  /** Sessions starting and chat arriving before this offset are kept, ms of simulated time. */
  readonly windowMs: number;
  /** Turns kept per session, from its first. */
  readonly maxTurns: number;
}

/** The node a request enters through in the slice: its own entry when that node is in it, else one picked by the entry's name. */
export function sliceEntry(entry: string, nodes: readonly string[]): string {
  if (nodes.includes(entry)) return entry;
  let h = 0;
  for (let i = 0; i < entry.length; i++) h = (h * 31 + entry.charCodeAt(i)) >>> 0;
  return nodes[h % nodes.length]!;
}

export function sliceTrace(trace: Trace, spec: SliceSpec): Trace {
  if (spec.nodes.length === 0) throw new Error('a slice needs at least one node');
  const move = (r: TraceRequest): TraceRequest => ({ ...r, entry: sliceEntry(r.entry, spec.nodes) });
  const sessions: Session[] = trace.sessions
    .filter((s) => s.startMs < spec.windowMs)
    .map((s) => ({ ...s, turns: s.turns.slice(0, spec.maxTurns).map((t) => ({ ...t, calls: t.calls.map(move) })) }));
  const open = trace.open.filter((o) => o.atMs < spec.windowMs && o.request.kind !== 'embed').map((o) => ({ atMs: o.atMs, request: move(o.request) }));
  const calls = sessions.reduce((n, s) => n + s.turns.reduce((m, t) => m + t.calls.length, 0), 0);
  return { sessions, open, requestCount: calls + open.length };
}
