/**
 * GET /metrics on a real Hub (issue 12, item 4): known traffic through two simulated engines,
 * then the counters and histograms are checked against the routing log's own rows. Both are
 * recorded at the moment a row settles, so they must agree exactly.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, request } from 'undici';
import OpenAI from 'openai';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { failoverReasonKind } from '../../src/metrics/failover-reason.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { openRaw } from '../helpers/raw-http.js';

const MODEL = 'qwen3:8b';

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The Prometheus text format's sample lines (comments skipped). */
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const sum = (all: Sample[], name: string, match: Record<string, string> = {}) =>
  all.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

describe('Prometheus /metrics', () => {
  let ollama: SimEngine;
  let vllm: SimEngine;
  let hub: HubProcess;
  let qaKey: string;

  before(async () => {
    ollama = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    vllm = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url, VLLM_URL: vllm.url } });
    const created = await hub.api<{ key: string }>('POST', '/api/hub/api-keys', { name: 'prometheus', scope: 'qa:read' });
    qaKey = created.json.key;
  });
  after(async () => {
    await hub.stop();
    await Promise.all([ollama.close(), vllm.close()]);
  });

  async function scrape(key: string | null) {
    const res = await request(`${hub.url}/metrics`, { headers: key === null ? {} : { authorization: `Bearer ${key}` } });
    return { status: res.statusCode, type: res.headers['content-type'], text: await res.body.text() };
  }

  it('refuses a scrape without a credential', async () => {
    assert.equal((await scrape(null)).status, 401);
  });

  it('counts exactly what the routing log records: requests by route, outcome and node, failovers by reason, served latencies per node', async () => {
    const openai = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused', maxRetries: 0 });
    for (let i = 0; i < 2; i++) await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    const native = await request(`${hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, stream: false, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(native.statusCode, 200);
    await native.body.dump();
    // Ollama, tried first when both are idle, answers 503 once: the request fails over to vLLM.
    await ollama.setFault({ mode: 'error', status: 503, count: 1 });
    await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    // An engine refusing the request (400, back to the app at once): failed on the node that
    // answered, counted by outcome but kept out of its latencies. Whichever engine is asked refuses.
    await Promise.all([ollama, vllm].map((e) => e.setFault({ mode: 'error', status: 400, count: 1 })));
    await assert.rejects(openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }));
    await Promise.all([ollama.clearFaults(), vllm.clearFaults()]);
    // A model nothing holds: failed, served by no node.
    await assert.rejects(openai.chat.completions.create({ model: 'missing:1b', messages: [{ role: 'user', content: 'hi' }] }));

    const { json: page } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
    const rows = page.entries.filter((r) => r.outcome !== 'pending');
    assert.equal(rows.length, 6);
    const refused = rows.filter((r) => r.status === 400);
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!.outcome, 'failed');
    assert.notEqual(refused[0]!.node, null, 'the refusal names the node that answered');
    assert.notEqual(refused[0]!.durationMs, null);
    const metrics = await scrape(qaKey);
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.type), /^text\/plain; version=0\.0\.4/);
    const all = samples(metrics.text);

    const byKey = new Map<string, number>();
    for (const r of rows) {
      const key = JSON.stringify([r.direction, r.path, r.outcome, r.node ?? 'none', r.backend ?? 'none']);
      byKey.set(key, (byKey.get(key) ?? 0) + 1);
    }
    const counted = all.filter((s) => s.name === 'cihub_requests_total');
    assert.deepEqual(
      new Map(counted.map((s) => [JSON.stringify([s.labels.direction, s.labels.route, s.labels.outcome, s.labels.node, s.labels.backend]), s.value])),
      byKey,
    );
    assert.equal(sum(all, 'cihub_requests_total', { outcome: 'failed', node: 'none' }), 1);

    const attempts = rows.flatMap((r) => r.attempts);
    assert.equal(attempts.length, 1, 'the 503 was passed over once');
    assert.equal(sum(all, 'cihub_failovers_total'), 1);
    assert.equal(sum(all, 'cihub_failovers_total', { node: attempts[0]!.node, reason: failoverReasonKind(attempts[0]!) }), 1);
    assert.equal(failoverReasonKind(attempts[0]!), 'http_5xx');

    // Latencies are a served answer's: refusals and failures are counted above, by outcome, only.
    for (const node of new Set(rows.map((r) => r.node ?? 'none'))) {
      const ofNode = rows.filter((r) => (r.node ?? 'none') === node && r.outcome === 'served');
      assert.equal(sum(all, 'cihub_first_byte_seconds_count', { node }), ofNode.filter((r) => r.durationMs !== null).length, `first-byte count for ${node}`);
      assert.equal(sum(all, 'cihub_request_duration_seconds_count', { node }), ofNode.filter((r) => r.totalMs !== null).length, `total-time count for ${node}`);
      const totalSeconds = ofNode.reduce((n, r) => n + (r.totalMs ?? 0), 0) / 1000;
      assert.ok(Math.abs(sum(all, 'cihub_request_duration_seconds_sum', { node }) - totalSeconds) < 1e-6, `total-time sum for ${node}`);
    }
  });

  it('reports each engine probe, nothing in flight when idle, and the process metrics', async () => {
    const all = samples((await scrape(hub.operatorKey)).text);
    assert.deepEqual(
      all
        .filter((s) => s.name === 'cihub_engine_up')
        .map((s) => [s.labels.engine, s.labels.kind, s.value])
        .sort(),
      [
        ['ollama', 'ollama', 1],
        ['vllm', 'vllm', 1],
      ],
    );
    // Idle is a measured 0 per engine, not a missing series (which Prometheus reads as no data).
    assert.deepEqual(
      all
        .filter((s) => s.name === 'cihub_in_flight_requests')
        .map((s) => [s.labels.target, s.labels.kind, s.value])
        .sort(),
      [
        ['ollama', 'engine', 0],
        ['vllm', 'engine', 0],
      ],
    );
    assert.ok(all.some((s) => s.name === 'cihub_process_resident_memory_bytes' && s.value > 0));
  });
});

describe('Prometheus /metrics: open connections', () => {
  // A Hub of its own, so that nothing but this test holds a connection to it.
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub.stop();
  });

  it("counts the connections the Hub holds open, the scrape's own included, and none turned away", async () => {
    const held = await Promise.all([openRaw(hub.url), openRaw(hub.url), openRaw(hub.url)]);
    const client = new Client(hub.url);
    try {
      const res = await client.request({ method: 'GET', path: '/metrics', headers: { authorization: `Bearer ${hub.operatorKey}` } });
      const all = samples(await res.body.text());
      assert.equal(sum(all, 'cihub_http_open_connections'), held.length + 1);
      assert.equal(sum(all, 'cihub_http_connections_dropped_total'), 0);
    } finally {
      for (const c of held) c.destroy();
      await client.close();
    }
  });
});
