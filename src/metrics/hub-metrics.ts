/**
 * The Hub's Prometheus metrics (prom-client), one registry per Hub so several Hubs in one
 * process (the demo, tests) never share counters. Request counts and latencies are recorded
 * from a routing-log row at the moment it settles, from the row itself, so /metrics and the
 * routing log cannot disagree about what happened. Gauges (in flight, peers, engines, withheld)
 * are read from the Hub's in-memory state at scrape time; nothing here probes anything.
 *
 * Names follow Prometheus conventions: a `cihub_` prefix, base units in the name (`_seconds`),
 * `_total` on counters. Label values are bounded: routes come from the route table, nodes are
 * `local` or a paired peer's name, failover reasons are kinds (failover-reason.ts).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RoutingLogEntry } from '../routing-log/entry.js';
import { failoverReasonKind } from './failover-reason.js';

/** Seconds; LLM answers run from tens of milliseconds (cached, embeddings) to the 300 s first-byte floor and beyond. */
export const LATENCY_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900] as const;

export interface MetricsSources {
  /** In-flight counts by key: a local engine id or a peer's name. */
  inFlight(): ReadonlyMap<string, number>;
  /** This node's engine ids, to tell an engine key from a peer key. */
  engineIds(): ReadonlySet<string>;
  /** Engines that have answered at least one probe. */
  engines(): ReadonlyArray<{ readonly id: string; readonly kind: string; readonly healthy: boolean }>;
  peers(): ReadonlyArray<{ readonly name: string; readonly status: string; readonly enabled: boolean }>;
  /** Withheld engine/model pairs by why: output faults, or a model the engine cannot serve. */
  withheld(): ReadonlyArray<{ readonly book: 'output_fault' | 'unservable'; readonly key: string }>;
}

const PEER_STATUSES = ['pending', 'connected', 'unreachable'] as const;

export class HubMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'direction' | 'route' | 'outcome' | 'node' | 'backend'>;
  readonly #failovers: Counter<'direction' | 'node' | 'reason'>;
  readonly #firstByte: Histogram<'direction' | 'node'>;
  readonly #total: Histogram<'direction' | 'node'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'cihub_' });
    this.#requests = new Counter({
      name: 'cihub_requests_total',
      help: 'Proxied requests by how their routing-log row settled; node is local, a peer name, or none when nothing answered.',
      labelNames: ['direction', 'route', 'outcome', 'node', 'backend'],
      registers,
    });
    this.#failovers = new Counter({
      name: 'cihub_failovers_total',
      help: 'Candidates passed over before a request settled, by the node passed over and the kind of reason.',
      labelNames: ['direction', 'node', 'reason'],
      registers,
    });
    this.#firstByte = new Histogram({
      name: 'cihub_first_byte_seconds',
      help: "Time to the serving node's response headers (the routing log's durationMs), by node.",
      labelNames: ['direction', 'node'],
      buckets: [...LATENCY_BUCKETS_SECONDS],
      registers,
    });
    this.#total = new Histogram({
      name: 'cihub_request_duration_seconds',
      help: "Time to the end of the response relayed to the caller (the routing log's totalMs), by node.",
      labelNames: ['direction', 'node'],
      buckets: [...LATENCY_BUCKETS_SECONDS],
      registers,
    });
    new Gauge({
      name: 'cihub_in_flight_requests',
      help: 'Requests this Hub has handed to a local engine or forwarded to a peer and not yet finished.',
      labelNames: ['target', 'kind'],
      registers,
      collect() {
        this.reset();
        const engines = sources.engineIds();
        for (const [target, n] of sources.inFlight()) this.set({ target, kind: engines.has(target) ? 'engine' : 'peer' }, n);
      },
    });
    new Gauge({
      name: 'cihub_engine_up',
      help: '1 when the engine last answered its probe as the engine it is configured as, else 0; absent before the first probe.',
      labelNames: ['engine', 'kind'],
      registers,
      collect() {
        this.reset();
        for (const e of sources.engines()) this.set({ engine: e.id, kind: e.kind }, e.healthy ? 1 : 0);
      },
    });
    new Gauge({
      name: 'cihub_peer_status',
      help: "Each paired peer's status: 1 on the label of its current status, 0 on the others.",
      labelNames: ['peer', 'status'],
      registers,
      collect() {
        this.reset();
        for (const p of sources.peers()) for (const s of PEER_STATUSES) this.set({ peer: p.name, status: s }, p.status === s ? 1 : 0);
      },
    });
    new Gauge({
      name: 'cihub_peer_enabled',
      help: '1 when the operator lets work flow to and from the peer, 0 when it is disabled.',
      labelNames: ['peer'],
      registers,
      collect() {
        this.reset();
        for (const p of sources.peers()) this.set({ peer: p.name }, p.enabled ? 1 : 0);
      },
    });
    new Gauge({
      name: 'cihub_withheld',
      help: 'Engine/model pairs currently withheld: for output faults (placed last) or as unservable (no candidate here).',
      labelNames: ['book', 'node', 'backend', 'model'],
      registers,
      collect() {
        this.reset();
        for (const w of sources.withheld()) {
          const [node = '', backend = '', model = ''] = w.key.split('|');
          this.set({ book: w.book, node, backend, model }, 1);
        }
      },
    });
  }

  /** Called once per row, by the routing log, when the row settles. */
  onSettle(row: RoutingLogEntry): void {
    const node = row.node ?? 'none';
    this.#requests.inc({ direction: row.direction, route: row.path, outcome: row.outcome, node, backend: row.backend ?? 'none' });
    for (const a of row.attempts) this.#failovers.inc({ direction: row.direction, node: a.node, reason: failoverReasonKind(a) });
    if (row.durationMs !== null) this.#firstByte.observe({ direction: row.direction, node }, row.durationMs / 1000);
    if (row.totalMs !== null) this.#total.observe({ direction: row.direction, node }, row.totalMs / 1000);
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
