/**
 * The failover walk between two local engines that hold the same model (spec, Failover):
 * what moves a request on, what does not, and what the app and the routing log see.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

const MODEL = 'qwen3:8b';
/**
 * The Hub's first-byte deadline here. Only a hanging engine waits it out; every healthy answer in
 * this file has to beat it, the second engine's included after a failover. At 400 ms a loaded
 * machine could make a healthy engine miss it too, and the walk then moved on where a test
 * expected it to stop (or failed the request the second engine should have served). 3 s is a few
 * hundred times what a simulated answer takes, and stretched by HUB_TEST_TIME_SCALE.
 */
const FIRST_BYTE_TIMEOUT_MS = scaled(3_000);
// Two failures of one engine within five minutes withhold that model there, so each test asks
// for its own model: the rules under test must not see each other's strikes.
const MODELS = Array.from({ length: 16 }, (_, i) => `qwen3:8b-t${i}`);
let testIndex = 0;
let model = MODELS[0]!;
beforeEach(() => {
  model = MODELS[testIndex++ % MODELS.length]!;
});

async function chat(hub: HubProcess, body: Record<string, unknown> = {}) {
  const res = await request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

function messageOf(text: string): string {
  return (JSON.parse(text) as { error: { message: string } }).error.message;
}

async function row(hub: HubProcess, id: string): Promise<RoutingLogEntry> {
  const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
  const found = json.entries.find((e) => e.id === id);
  assert.ok(found, `routing-log row ${id}`);
  return found;
}

describe('failover between two local engines', () => {
  let first: SimEngine;
  let second: SimEngine;
  let hub: HubProcess;

  before(async () => {
    // Ollama is configured before vLLM, so with both idle the walk tries Ollama first.
    first = await startSimEngine({ dialect: 'ollama', models: MODELS, timeScale: 0.01, controlPort: 0 });
    second = await startSimEngine({ dialect: 'vllm', models: MODELS, timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: first.url, VLLM_URL: second.url, HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS) } });
  });
  afterEach(async () => {
    await Promise.all([first.clearFaults(), second.clearFaults()]);
  });
  after(async () => {
    await hub.stop();
    await Promise.all([first.close(), second.close()]);
  });

  const movesOn: ReadonlyArray<{ name: string; fault: Parameters<SimEngine['setFault']>[0]; reason: RegExp; status: number | null }> = [
    { name: 'a 503', fault: { mode: 'error', status: 503 }, reason: /^HTTP 503$/, status: 503 },
    { name: 'a 500 whose body matches nothing', fault: { mode: 'error', status: 500, body: '{"error":"boom"}' }, reason: /^HTTP 500$/, status: 500 },
    { name: 'a 429', fault: { mode: 'error', status: 429 }, reason: /^HTTP 429$/, status: 429 },
    { name: 'a 408', fault: { mode: 'error', status: 408 }, reason: /^HTTP 408$/, status: 408 },
    {
      name: 'no response headers within the deadline',
      fault: { mode: 'hang' },
      reason: new RegExp(`^No response headers within ${FIRST_BYTE_TIMEOUT_MS}ms$`),
      status: null,
    },
  ];
  for (const c of movesOn) {
    it(`moves on after ${c.name} and names the node that answered`, async () => {
      await first.setFault(c.fault);
      const res = await chat(hub);
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-hub-pool-backend'], 'vllm');
      const r = await row(hub, String(res.headers['x-hub-pool-request-id']));
      assert.equal(r.outcome, 'served');
      assert.equal(r.attempt, 2);
      assert.deepEqual(r.failedOverFrom, ['local']);
      assert.equal(r.attempts[0]?.backend, 'ollama');
      assert.equal(r.attempts[0]?.status, c.status);
      assert.match(r.attempts[0]?.reason ?? '', c.reason);
    });
  }

  it('moves on when the engine refuses the connection after the snapshot last saw it up', async () => {
    // With the default TTL of 0 every request probes live, so a refusing engine is simply not a
    // candidate. A snapshot that still shows it up is the case where the walk meets the refusal.
    await hub.api('PATCH', '/api/inference/pool/settings', { poolProbeSnapshotTtlMs: 300_000 });
    try {
      await chat(hub);
      await first.setFault({ mode: 'refuse' });
      const res = await chat(hub);
      assert.equal(res.status, 200);
      const r = await row(hub, String(res.headers['x-hub-pool-request-id']));
      assert.match(r.attempts[0]?.reason ?? '', /ECONNREFUSED/);
    } finally {
      await first.clearFaults();
      await hub.api('PATCH', '/api/inference/pool/settings', { poolProbeSnapshotTtlMs: 0 });
    }
  });

  it("never fails over an ordinary 4xx: the app gets the engine's answer and the row settles failed", async () => {
    await first.setFault({ mode: 'error', status: 400, body: '{"error":"qwen3:8b does not support tools"}' });
    const secondBefore = second.state().requests;
    const res = await chat(hub);
    assert.equal(res.status, 400);
    assert.match(res.text, /does not support tools/);
    assert.equal(second.state().requests, secondBefore);
    const r = await row(hub, String(res.headers['x-hub-pool-request-id']));
    assert.equal(r.outcome, 'failed');
    assert.deepEqual(r.requestError, { signature: 'client-error', basis: 'status', confirms: null });
  });

  it('answers 502 with only the request id when every candidate fails, and says what the last one did', async () => {
    await first.setFault({ mode: 'error', status: 503 });
    await second.setFault({ mode: 'error', status: 502 });
    const res = await chat(hub);
    assert.equal(res.status, 502);
    assert.match(messageOf(res.text), /All 2 pool candidates for model "qwen3:8b-t\d+" failed; the last: local \(HTTP 502\)/);
    assert.equal(res.headers['x-hub-pool-served-by'], undefined);
    assert.equal(res.headers['x-hub-pool-backend'], undefined);
    assert.equal(res.headers['x-hub-pool-model'], undefined);
    const r = await row(hub, String(res.headers['x-hub-pool-request-id']));
    assert.equal(r.outcome, 'failed');
    assert.equal(r.node, null);
    assert.equal(r.reason, 'HTTP 502');
  });

  it('says the deadline, not "failed", when every candidate ran out of time', async () => {
    await first.setFault({ mode: 'hang' });
    await second.setFault({ mode: 'hang' });
    const res = await chat(hub);
    assert.equal(res.status, 502);
    assert.match(messageOf(res.text), /No pool candidate answered for model "qwen3:8b-t\d+" within its deadline/);
  });

  it('never retries a stream once it is committed, even when it is cut', async () => {
    await first.setFault({ mode: 'cut' });
    const secondBefore = second.state().requests;
    const res = await request(`${hub.pool}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.statusCode, 200);
    let text = '';
    // The Hub lets a committed stream die with its engine: the app sees the cut, never a retry.
    await assert.rejects(async () => {
      for await (const chunk of res.body) text += chunk.toString();
    });
    assert.ok(text.startsWith('data: '), 'the stream had started');
    assert.ok(!text.includes('[DONE]'));
    assert.equal(second.state().requests, secondBefore);
    const r = await row(hub, String(res.headers['x-hub-pool-request-id']));
    assert.equal(r.outcome, 'failed');
    assert.equal(r.attempt, 1);
    // A completion cut mid-stream is the node's fault, recorded as a truncated answer.
    assert.equal(r.reason, 'output fault (truncated-upstream)');
    assert.deepEqual(r.requestError, { signature: 'truncated-upstream', basis: 'node', confirms: null });
  });
});

describe('attribution headers', () => {
  let rogue: Server;
  let hub: HubProcess;
  before(async () => {
    // An engine (or peer) that tries to name the server itself: the Hub's own statement wins.
    rogue = createServer((req, res) => {
      if (req.url === '/api/tags') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ models: [{ name: MODEL, model: MODEL }] }));
        return;
      }
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'x-hub-pool-served-by': 'someone-else', 'x-hub-pool-upstream-status': '500' });
      res.end('{"done":true}');
    });
    await new Promise<void>((r) => rogue.listen(0, '127.0.0.1', r));
    hub = await startHubProcess({ env: { OLLAMA_URL: `http://127.0.0.1:${(rogue.address() as AddressInfo).port}` } });
  });
  after(async () => {
    await hub.stop();
    rogue.close();
  });

  it('drops every x-hub-pool-* header the engine sent and sets its own', async () => {
    const res = await request(`${hub.pool}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, prompt: 'x', stream: false }),
    });
    await res.body.text();
    assert.equal(res.headers['x-hub-pool-served-by'], 'local');
    assert.equal(res.headers['x-hub-pool-upstream-status'], undefined);
  });
});
