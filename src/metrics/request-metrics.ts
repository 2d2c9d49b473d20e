/**
 * The Hub's request counts and latencies, recorded from a routing-log row at the moment it
 * settles, from the row itself, so /metrics and the routing log cannot disagree about what
 * happened. Kept in plain tallies (label-tallies.ts) whether or not anything ever scrapes them;
 * prom-registry.ts renders them.
 *
 * Label values are bounded: routes come from the route table, failover reasons are kinds
 * (failover-reason.ts), and nodes are `local`, `none` or a paired peer's name, at most
 * MAX_NODE_LABELS of them.
 *
 * `node` is the node that served, on both directions. An inbound row's own node field names the
 * peer that sent the work (routing-log/entry.ts), and labelling by it put a peer's forwards under
 * the sender's name in "requests by serving node" and in the per-node latencies (found by an
 * audit). Work a peer sent was served here, so it counts under `local`.
 */
import type { RoutingLogEntry } from '../routing-log/entry.js';
import { passedOverAttempts } from '../routing-log/walk-attempts.js';
import { failoverReasonKind } from './failover-reason.js';
import { CounterTally, HistogramTally } from './label-tallies.js';

/** Seconds; LLM answers run from tens of milliseconds (cached, embeddings) to the 300 s first-byte floor and beyond. */
export const LATENCY_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900] as const;

export const REQUESTS_METRIC = {
  name: 'cihub_requests_total',
  help: 'Proxied requests by how their routing-log row settled; node is the serving node: local (work a peer sent included), a peer name, or none when nothing answered.',
  labelNames: ['direction', 'route', 'outcome', 'node', 'backend'],
} as const;

export const FAILOVERS_METRIC = {
  name: 'cihub_failovers_total',
  help: 'Candidates passed over before a request settled, by the node passed over and the kind of reason.',
  labelNames: ['direction', 'node', 'reason'],
} as const;

export const FIRST_BYTE_METRIC = {
  name: 'cihub_first_byte_seconds',
  help: "Time to the serving node's response headers (the routing log's durationMs) of requests served, by serving node.",
  labelNames: ['direction', 'node'],
} as const;

export const REQUEST_DURATION_METRIC = {
  name: 'cihub_request_duration_seconds',
  help: "Time to the end of the response relayed to the caller (the routing log's totalMs) of requests served, by serving node.",
  labelNames: ['direction', 'node'],
} as const;

/**
 * Distinct node names the metrics label by. A pool is tens of Hubs, but a signed peer renames its
 * row by signing under another name (peer-guard.ts), and every name a request failed over from
 * was a series kept for the Hub's life: 100,000 names held 41.5 MB of heap and went out on every
 * scrape (found by an audit). Names past this many count under OVERFLOW_NODE.
 */
export const MAX_NODE_LABELS = 256;
/** Not a MagicDNS name (it has no dot), so no peer can be named it. */
export const OVERFLOW_NODE = 'other';

/** The node label for a name: the name while fewer than MAX_NODE_LABELS were seen, else OVERFLOW_NODE. */
class NodeLabels {
  readonly #seen = new Set<string>();

  of(node: string): string {
    if (this.#seen.has(node)) return node;
    if (this.#seen.size >= MAX_NODE_LABELS) return OVERFLOW_NODE;
    this.#seen.add(node);
    return node;
  }
}

type LabelOf<M extends { labelNames: readonly string[] }> = M['labelNames'][number];

/** What the metrics read from a settled row. */
export type SettledRow = Pick<
  RoutingLogEntry,
  'direction' | 'path' | 'outcome' | 'node' | 'backend' | 'status' | 'failedOverFrom' | 'attempts' | 'durationMs' | 'totalMs'
>;

/**
 * The serving node as the metrics name it: none when no response headers came (a row the caller
 * hung up on still names the node it was waiting on, which answered nothing). An outbound row
 * names it. On an inbound row an engine of this Hub's served whenever the row names one (the
 * walk only tries local engines for a peer's forward).
 */
export function servingNode(row: Pick<SettledRow, 'direction' | 'node' | 'backend' | 'status'>): string {
  if (row.status === null) return 'none';
  if (row.direction === 'inbound') return row.backend === null ? 'none' : 'local';
  return row.node ?? 'none';
}

/** The serving engine's kind, under the same rule: none when nothing answered. */
export function servingBackend(row: Pick<SettledRow, 'backend' | 'status'>): string {
  return row.status === null ? 'none' : (row.backend ?? 'none');
}

export class RequestMetrics {
  readonly requests = new CounterTally<LabelOf<typeof REQUESTS_METRIC>>(REQUESTS_METRIC.labelNames);
  readonly failovers = new CounterTally<LabelOf<typeof FAILOVERS_METRIC>>(FAILOVERS_METRIC.labelNames);
  readonly firstByte = new HistogramTally<LabelOf<typeof FIRST_BYTE_METRIC>>(FIRST_BYTE_METRIC.labelNames, LATENCY_BUCKETS_SECONDS);
  readonly total = new HistogramTally<LabelOf<typeof REQUEST_DURATION_METRIC>>(REQUEST_DURATION_METRIC.labelNames, LATENCY_BUCKETS_SECONDS);
  readonly #nodes = new NodeLabels();

  /** Called once per row, when the row settles. */
  record(row: SettledRow): void {
    const node = this.#nodes.of(servingNode(row));
    this.requests.inc({ direction: row.direction, route: row.path, outcome: row.outcome, node, backend: servingBackend(row) });
    // The row's failovers only: a walk that ran out did not fail over from its last candidate.
    for (const a of passedOverAttempts(row)) this.failovers.inc({ direction: row.direction, node: this.#nodes.of(a.node), reason: failoverReasonKind(a) });
    // Only a served row's times are observed. A refusal or an engine's verdict comes back in
    // about 5 ms, and counting those as first bytes once dragged a node's p50 from 90 s to 18 ms
    // (spec, routing log); total time would mix the same way. A failed request still counts
    // above, by outcome, and the Resource Monitor's first-byte figures read served rows only too.
    if (row.outcome !== 'served') return;
    if (row.durationMs !== null) this.firstByte.observe({ direction: row.direction, node }, row.durationMs / 1000);
    if (row.totalMs !== null) this.total.observe({ direction: row.direction, node }, row.totalMs / 1000);
  }
}
