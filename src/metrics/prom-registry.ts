/**
 * The Prometheus registry behind GET /metrics, built by HubMetrics on the first scrape: this is
 * the only module that imports prom-client, so a Hub nothing scrapes never loads it.
 *
 * What is in it, in the order the text lists it: prom-client's process metrics (`cihub_process_*`,
 * `cihub_nodejs_*`), the request counts and latencies (request-metrics.ts, rendered from the
 * Hub's tallies), then the gauges read from the Hub's in-memory state at scrape time; nothing
 * here probes anything.
 *
 * Built late, the process metrics differ from a registry built at start-up in what they can
 * know: the CPU counters are topped up with the CPU the process used between HubMetrics'
 * creation and now (so they read as they would have), while GC durations and the event-loop
 * delay figures are measured from the first scrape on.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import type { MetricsSources } from './hub-metrics.js';
import type { CounterTally, HistogramTally } from './label-tallies.js';
import { FAILOVERS_METRIC, FIRST_BYTE_METRIC, REQUEST_DURATION_METRIC, REQUESTS_METRIC, type RequestMetrics } from './request-metrics.js';

const PEER_STATUSES = ['pending', 'connected', 'unreachable'] as const;
const PREFIX = 'cihub_';
const MICROS_PER_SECOND = 1e6;

interface MetricDescription {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}

/** A prom-client Counter whose series are the tally's, read afresh at every scrape. */
function tallyCounter(d: MetricDescription, tally: CounterTally<string>, registry: Registry): void {
  new Counter({
    name: d.name,
    help: d.help,
    labelNames: [...d.labelNames],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of tally.series()) this.inc(s.labels, s.value);
    },
  });
}

/**
 * A histogram whose series are the tally's. prom-client's Histogram can only be fed one
 * observation at a time, so this is a metric object of its own: `get()` answers the shape
 * prom-client's Histogram answers (cumulative `_bucket` lines with `le` first, then `+Inf`,
 * `_sum`, `_count`), and the registry formats it like any other.
 */
function tallyHistogram(d: MetricDescription, tally: HistogramTally<string>, registry: Registry): void {
  const bucket = `${d.name}_bucket`;
  const metric = {
    name: d.name,
    help: d.help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
      for (const s of tally.series()) {
        let cumulative = 0;
        tally.upperBounds.forEach((le, i) => {
          cumulative += s.bucketCounts[i]!;
          values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: bucket });
        });
        values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: bucket });
        values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${d.name}_sum` });
        values.push({ labels: { ...s.labels }, value: s.count, metricName: `${d.name}_count` });
      }
      return { name: d.name, help: d.help, type: 'histogram', aggregator: 'sum', values };
    },
  };
  // The registry only reads name, help, type and get() from what it holds (prom-client 15's registry.js).
  registry.registerMetric(metric as unknown as Metric);
}

/** Adds the CPU used between `since` and now to prom-client's CPU counters, which count from their creation. */
function topUpCpu(registry: Registry, since: NodeJS.CpuUsage): void {
  const used = process.cpuUsage(since);
  const add = (name: string, micros: number) => (registry.getSingleMetric(PREFIX + name) as Counter | undefined)?.inc(micros / MICROS_PER_SECOND);
  add('process_cpu_user_seconds_total', used.user);
  add('process_cpu_system_seconds_total', used.system);
  add('process_cpu_seconds_total', used.user + used.system);
}

/** `cpuSince`: process.cpuUsage() when HubMetrics was created, where an eager registry would have started counting. */
export function buildPromRegistry(sources: MetricsSources, requests: RequestMetrics, cpuSince: NodeJS.CpuUsage, connectionsDropped: () => number): Registry {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  topUpCpu(registry, cpuSince);
  tallyCounter(REQUESTS_METRIC, requests.requests, registry);
  tallyCounter(FAILOVERS_METRIC, requests.failovers, registry);
  tallyHistogram(FIRST_BYTE_METRIC, requests.firstByte, registry);
  tallyHistogram(REQUEST_DURATION_METRIC, requests.total, registry);
  new Gauge({
    name: 'cihub_in_flight_requests',
    help: 'Requests this Hub has handed to a local engine or forwarded to a peer and not yet finished; 0 for each engine and paired peer with none.',
    labelNames: ['target', 'kind'],
    registers,
    collect() {
      this.reset();
      const engines = sources.engineIds();
      // The count drops a key at zero, but an idle engine or peer is a measured 0, not unknown:
      // a missing series reads as "no data" in Prometheus, and an idle Hub's sum() as nothing.
      for (const id of engines) this.set({ target: id, kind: 'engine' }, 0);
      for (const p of sources.peers()) if (p.status !== 'pending' && !engines.has(p.name)) this.set({ target: p.name, kind: 'peer' }, 0);
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
  new Gauge({
    name: 'cihub_http_open_connections',
    help: 'Connections the HTTP server holds open, against its ceiling (cihub_http_connections_dropped_total counts those turned away).',
    registers,
    async collect() {
      this.set(await sources.openConnections());
    },
  });
  new Counter({
    name: 'cihub_http_connections_dropped_total',
    help: 'Connections closed unanswered because the Hub already held its ceiling of open connections.',
    registers,
    collect() {
      this.reset();
      this.inc(connectionsDropped());
    },
  });
  return registry;
}
