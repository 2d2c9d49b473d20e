import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { passedOverAttempts } from '../routing-log/walk-attempts.js';
import { failoverReasonKind } from './failover-reason.js';
import { HubMetrics } from './hub-metrics.js';
import { NO_SOURCES } from './metrics-sources.fixture.js';
import {
  FAILOVERS_METRIC,
  FIRST_BYTE_METRIC,
  LATENCY_BUCKETS_SECONDS,
  MAX_NODE_LABELS,
  OVERFLOW_NODE,
  REQUEST_DURATION_METRIC,
  REQUESTS_METRIC,
  servingBackend,
  servingNode,
  type SettledRow,
} from './request-metrics.js';

const served = (durationMs: number, totalMs: number, node = 'local'): SettledRow => ({
  direction: 'outbound',
  path: '/v1/chat/completions',
  outcome: 'served',
  node,
  backend: 'ollama',
  status: 200,
  failedOverFrom: [],
  attempts: [],
  durationMs,
  totalMs,
});

/** A walk that ran out, as the Hub records it: failed over from hub-b, then ended on local. */
const failedOver: SettledRow = {
  direction: 'inbound',
  path: '/api/chat',
  outcome: 'failed',
  node: null,
  backend: null,
  status: null,
  failedOverFrom: ['hub-b.tail0.ts.net'],
  attempts: [
    { node: 'hub-b.tail0.ts.net', backend: 'vllm', status: 503, reason: 'HTTP 503' },
    { node: 'local', backend: null, status: null, reason: 'No response headers within 300000ms' },
  ],
  durationMs: null,
  totalMs: 40,
};

/** Values on bucket bounds, between them, above the last one, and an awkward node name. */
const ROWS: readonly SettledRow[] = [
  served(50, 120),
  failedOver,
  served(900_000, 1_000_000, 'hub-"c"\\.ts.net'),
  served(0.3, 2500),
  served(123.4, 300_000, 'hub-b.tail0.ts.net'),
  served(50, 120),
];

/** One metric's block of the text format (its HELP, TYPE and sample lines), or null when absent. */
function block(text: string, name: string): string | null {
  return (
    text
      .split('\n\n')
      .map((b) => b.trimEnd())
      .find((b) => b.startsWith(`# HELP ${name} `)) ?? null
  );
}

/**
 * The upper bound of the bucket holding a node's median, as histogram_quantile(0.5, …) picks it:
 * the first whose cumulative count reaches half the total.
 */
function medianBucket(text: string, name: string, node: string): string | null {
  const buckets = [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)",direction="outbound",node="${node}"\\} (\\d+)$`, 'gm'))];
  const total = Number(buckets.at(-1)?.[2] ?? 0);
  return buckets.find((b) => Number(b[2]) >= total / 2)?.[1] ?? null;
}

/** What prom-client's own Counter and Histogram make of the same rows, observed one at a time. */
async function eagerReference(rows: readonly SettledRow[]): Promise<string> {
  const registers = [new Registry()];
  const requests = new Counter({ ...REQUESTS_METRIC, labelNames: [...REQUESTS_METRIC.labelNames], registers });
  const failovers = new Counter({ ...FAILOVERS_METRIC, labelNames: [...FAILOVERS_METRIC.labelNames], registers });
  const buckets = [...LATENCY_BUCKETS_SECONDS];
  const firstByte = new Histogram({ ...FIRST_BYTE_METRIC, labelNames: [...FIRST_BYTE_METRIC.labelNames], buckets, registers });
  const total = new Histogram({ ...REQUEST_DURATION_METRIC, labelNames: [...REQUEST_DURATION_METRIC.labelNames], buckets, registers });
  for (const row of rows) {
    const node = servingNode(row);
    requests.inc({ direction: row.direction, route: row.path, outcome: row.outcome, node, backend: servingBackend(row) });
    for (const a of passedOverAttempts(row)) failovers.inc({ direction: row.direction, node: a.node, reason: failoverReasonKind(a) });
    if (row.outcome !== 'served') continue;
    if (row.durationMs !== null) firstByte.observe({ direction: row.direction, node }, row.durationMs / 1000);
    if (row.totalMs !== null) total.observe({ direction: row.direction, node }, row.totalMs / 1000);
  }
  return registers[0]!.metrics();
}

const REQUEST_METRIC_NAMES = [REQUESTS_METRIC.name, FAILOVERS_METRIC.name, FIRST_BYTE_METRIC.name, REQUEST_DURATION_METRIC.name];

describe('HubMetrics', () => {
  it('shows on the first scrape the requests that settled before it, and keeps counting after it', async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    metrics.onSettle(served(50, 120));
    metrics.onSettle(failedOver);
    const first = (await metrics.text()).body;
    const line = 'cihub_requests_total{direction="outbound",route="/v1/chat/completions",outcome="served",node="local",backend="ollama"}';
    assert.ok(first.includes(`\n${line} 1\n`), first);
    assert.ok(first.includes('\ncihub_requests_total{direction="inbound",route="/api/chat",outcome="failed",node="none",backend="none"} 1\n'));
    assert.ok(first.includes('\ncihub_failovers_total{direction="inbound",node="hub-b.tail0.ts.net",reason="http_5xx"} 1\n'));
    assert.ok(!first.includes('cihub_failovers_total{direction="inbound",node="local"'), 'the candidate a walk ran out on was not failed over from');
    assert.ok(first.includes('\ncihub_first_byte_seconds_count{direction="outbound",node="local"} 1\n'));

    metrics.onSettle(served(50, 120));
    const second = (await metrics.text()).body;
    assert.ok(second.includes(`\n${line} 2\n`), second);
    assert.ok(second.includes('\ncihub_first_byte_seconds_count{direction="outbound",node="local"} 2\n'));
  });

  it('counts work a peer sent under the node that served it, this one (local), not under the sender', async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    const SENDER = 'hub-a.tail0.ts.net';
    metrics.onSettle({ ...served(800, 4_000), direction: 'inbound', path: '/api/chat', node: SENDER, backend: 'ollama' });
    const text = (await metrics.text()).body;
    assert.ok(text.includes('\ncihub_requests_total{direction="inbound",route="/api/chat",outcome="served",node="local",backend="ollama"} 1\n'), text);
    assert.ok(text.includes('\ncihub_first_byte_seconds_count{direction="inbound",node="local"} 1\n'));
    assert.ok(text.includes('\ncihub_request_duration_seconds_count{direction="inbound",node="local"} 1\n'));
    assert.ok(!text.includes(SENDER), 'the sender names no series');
  });

  it('counts a request the caller left before any answer under none, though its row names the node it waited on', async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    metrics.onSettle({ ...served(0, 900, 'hub-b.tail0.ts.net'), outcome: 'failed', status: null, durationMs: null });
    const text = (await metrics.text()).body;
    assert.ok(text.includes('\ncihub_requests_total{direction="outbound",route="/v1/chat/completions",outcome="failed",node="none",backend="none"} 1\n'), text);
    assert.ok(!text.includes('node="hub-b.tail0.ts.net"'), 'the node that answered nothing names no series');
  });

  it('labels at most MAX_NODE_LABELS node names, however many names a peer signs under, and counts the rest as other', async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    const names = Array.from({ length: MAX_NODE_LABELS + 50 }, (_, i) => `renamed-${i}.tail0.ts.net`);
    for (const name of names) {
      metrics.onSettle({
        ...served(50, 120),
        outcome: 'failed',
        failedOverFrom: [name],
        attempts: [{ node: name, backend: null, status: null, reason: 'fetch failed (ECONNREFUSED)' }],
      });
    }
    const text = (await metrics.text()).body;
    const failoverNodes = new Set([...text.matchAll(/^cihub_failovers_total\{direction="outbound",node="([^"]+)"/gm)].map((m) => m[1]));
    // 'local' serves each row above (the requests series) and is one of the names counted.
    assert.equal(failoverNodes.size, MAX_NODE_LABELS);
    assert.ok(failoverNodes.has(OVERFLOW_NODE));
    assert.ok(text.includes(`\ncihub_failovers_total{direction="outbound",node="${OVERFLOW_NODE}",reason="transport"} 51\n`), text.slice(-2000));
  });

  it("keeps a node's first-byte and total-time p50 on its served answers when refusals come back in 5 ms (the Resource Monitor's p50 moved from 90 s to 18 ms)", async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    metrics.onSettle(served(90_000, 200_000));
    const refused: SettledRow = { ...served(5, 6), outcome: 'failed' };
    for (let i = 0; i < 3; i++) metrics.onSettle(refused);
    const text = (await metrics.text()).body;
    assert.ok(text.includes('\ncihub_requests_total{direction="outbound",route="/v1/chat/completions",outcome="failed",node="local",backend="ollama"} 3\n'));
    assert.equal(medianBucket(text, FIRST_BYTE_METRIC.name, 'local'), '120');
    assert.equal(medianBucket(text, REQUEST_DURATION_METRIC.name, 'local'), '300');
  });

  it("renders the request counts and latencies line for line as prom-client's own Counter and Histogram would", async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    // Half before the registry exists, half after.
    for (const row of ROWS.slice(0, 3)) metrics.onSettle(row);
    await metrics.text();
    for (const row of ROWS.slice(3)) metrics.onSettle(row);
    const lazy = (await metrics.text()).body;
    const eager = await eagerReference(ROWS);
    for (const name of REQUEST_METRIC_NAMES) {
      assert.notEqual(block(eager, name), null, name);
      assert.equal(block(lazy, name), block(eager, name), name);
    }
  });

  it('lists the process metrics first, then the request metrics, then the gauges, in the Prometheus text format', async () => {
    const { contentType, body } = await new HubMetrics(NO_SOURCES).text();
    assert.match(contentType, /^text\/plain; version=0\.0\.4/);
    const names = [...body.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    const firstRequest = names.indexOf(REQUESTS_METRIC.name);
    assert.deepEqual(names.slice(firstRequest, firstRequest + 4), REQUEST_METRIC_NAMES);
    assert.ok(names.slice(0, firstRequest).every((n) => n.startsWith('cihub_process_') || n.startsWith('cihub_nodejs_')));
    assert.ok(names.slice(0, firstRequest).includes('cihub_process_cpu_seconds_total'));
    assert.deepEqual(names.slice(firstRequest + 4), [
      'cihub_in_flight_requests',
      'cihub_engine_up',
      'cihub_peer_status',
      'cihub_peer_enabled',
      'cihub_withheld',
      'cihub_http_open_connections',
      'cihub_http_connections_dropped_total',
    ]);
  });

  it('reports 0 in flight for each engine and paired peer with nothing running there, not a missing series', async () => {
    const metrics = new HubMetrics({
      ...NO_SOURCES,
      engineIds: () => new Set(['ollama-1', 'vllm-1']),
      inFlight: () => new Map([['ollama-1', 2]]),
      peers: () => [
        { name: 'hub-b.tail0.ts.net', status: 'connected', enabled: true },
        { name: 'hub-c.tail0.ts.net', status: 'unreachable', enabled: false },
        { name: 'hub-d.tail0.ts.net', status: 'pending', enabled: true },
      ],
    });
    const lines = block((await metrics.text()).body, 'cihub_in_flight_requests')!
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .sort();
    assert.deepEqual(lines, [
      'cihub_in_flight_requests{target="hub-b.tail0.ts.net",kind="peer"} 0',
      'cihub_in_flight_requests{target="hub-c.tail0.ts.net",kind="peer"} 0',
      'cihub_in_flight_requests{target="ollama-1",kind="engine"} 2',
      'cihub_in_flight_requests{target="vllm-1",kind="engine"} 0',
    ]);
  });

  it('reports the open connections as the server counts them at each scrape', async () => {
    let open = 7;
    const metrics = new HubMetrics({ ...NO_SOURCES, openConnections: async () => open });
    assert.match((await metrics.text()).body, /^cihub_http_open_connections 7$/m);
    open = 1;
    assert.match((await metrics.text()).body, /^cihub_http_open_connections 1$/m);
  });

  it('counts the connections the server turned away at its ceiling, from before the first scrape on', async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    assert.match((await metrics.text()).body, /^cihub_http_connections_dropped_total 0$/m);
    metrics.onConnectionDropped();
    metrics.onConnectionDropped();
    assert.match((await metrics.text()).body, /^cihub_http_connections_dropped_total 2$/m);
  });

  it('counts CPU from its own creation, not from the first scrape', async () => {
    const since = process.cpuUsage();
    const metrics = new HubMetrics(NO_SOURCES);
    // Spend at least 100 ms of CPU before anything is scraped (bounded: no wall-clock wait).
    const SPEND_MICROS = 100_000;
    let spent = process.cpuUsage(since);
    for (let i = 0; i < 10_000_000 && spent.user + spent.system < SPEND_MICROS; i++) {
      JSON.parse(JSON.stringify(ROWS));
      spent = process.cpuUsage(since);
    }
    const spentSeconds = (spent.user + spent.system) / 1e6;
    assert.ok(spentSeconds >= SPEND_MICROS / 1e6, 'the loop spent its CPU');
    const { body } = await metrics.text();
    const cpu = Number(/^cihub_process_cpu_seconds_total (\S+)$/m.exec(body)?.[1]);
    // Counted from the first scrape it would be the few ms since the registry was built. Not
    // compared exactly: the kernel's per-thread CPU times can lag a running thread by a tick.
    assert.ok(cpu >= spentSeconds / 2, `counted ${cpu} s, spent ${spentSeconds} s`);
  });
});
