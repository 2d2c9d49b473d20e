/**
 * Answers that are not answers (spec, "A 200 that is not an answer"), reproduced with the
 * simulator: the 2026-09-29 node whose Ollama answered with nothing but <unused49> and streams
 * without their closing frame, logged as served 167 times out of 237.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'gemma4:e4b';

async function ask(hub: HubProcess, path: '/api/chat' | '/v1/chat/completions', stream: boolean) {
  const res = await request(`${hub.pool}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: 'hello' }] }),
  });
  let text = '';
  try {
    for await (const chunk of res.body) text += chunk.toString();
  } catch {
    // a cut stream ends in an error on the app's side too
  }
  return { status: res.statusCode, id: String(res.headers['x-hub-pool-request-id']), backend: res.headers['x-hub-pool-backend'], text };
}

async function row(hub: HubProcess, id: string): Promise<RoutingLogEntry> {
  const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
  const r = json.entries.find((e) => e.id === id);
  assert.ok(r, `row ${id}`);
  return r;
}

describe('output checks on a single engine', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
  });
  afterEach(() => engine.clearFaults());
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('records a stream that ended without its done frame as a truncated answer, not as served', async () => {
    await engine.setFault({ mode: 'cut', count: 1 });
    const res = await ask(hub, '/api/chat', true);
    assert.equal(res.status, 200);
    assert.ok(!res.text.includes('"done":true'));
    const r = await row(hub, res.id);
    assert.equal(r.outcome, 'failed');
    assert.deepEqual(r.requestError, { signature: 'truncated-upstream', basis: 'node', confirms: null });
  });

  it('records an <unused49> stream as degenerate output, relayed as it came (a stream cannot be recalled)', async () => {
    await engine.setFault({ mode: 'unused', count: 1 });
    const res = await ask(hub, '/api/chat', true);
    assert.match(res.text, /<unused\d+>/);
    const r = await row(hub, res.id);
    assert.deepEqual(r.requestError, { signature: 'degenerate-output', basis: 'node', confirms: null });
  });

  it("relays a faulty non-streamed answer from the last candidate as the engine gave it, and records it as the node's fault", async () => {
    await engine.setFault({ mode: 'unused', count: 1 });
    const res = await ask(hub, '/v1/chat/completions', false);
    assert.equal(res.status, 200);
    const r = await row(hub, res.id);
    assert.equal(r.requestError?.basis, 'node');
  });

  it('counts output faults apart from refused requests and hang-ups in the summary', async () => {
    const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
    assert.equal(json.summary.counts.outputFaults, 3);
    assert.equal(json.summary.counts.requestErrors, 0);
    assert.equal(json.summary.counts.clientClosed, 0);
  });

  it('judges a sound answer sound', async () => {
    const res = await ask(hub, '/v1/chat/completions', true);
    assert.equal((await row(hub, res.id)).outcome, 'served');
  });
});

describe("a generate stream whose final frame carries a long prompt's context", () => {
  // Ollama's /api/generate ends on a frame holding every token of the conversation as `context`
  // (protocols.md §2.3): after a ~109 KB prompt, ~190 KB on one line, read in several pieces.
  const PROMPT = 'word '.repeat(22_000);
  let engine: SimEngine;
  let hub: HubProcess;
  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], answerTokens: 8, timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('serves it, strikes nothing, and reads its timings', async () => {
    for (let i = 0; i < 2; i += 1) {
      const res = await request(`${hub.pool}/api/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, prompt: `${i} ${PROMPT}` }),
      });
      const lines = (await res.body.text()).trim().split('\n');
      const final = JSON.parse(lines[lines.length - 1]!) as { done: boolean; context: number[] };
      assert.equal(final.done, true);
      assert.ok(JSON.stringify(final).length > 100_000, 'the final frame is far longer than the 4 KB tail');
      const id = String(res.headers['x-hub-pool-request-id']);
      const r = await eventually(async () => {
        const settled = await row(hub, id);
        return settled.outcome === 'pending' ? null : settled;
      }, `row ${id} to settle`);
      assert.equal(r.outcome, 'served', JSON.stringify(r.requestError));
      assert.equal(r.requestError, null);
    }
    assert.doesNotMatch(hub.log(), /withholding/);
    const { json } = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
    const bands = json.localNode.throughput?.estimates.find((e) => e.model.startsWith(MODEL))?.bands ?? [];
    assert.deepEqual(
      bands.map((b) => b.fromTokens),
      [16_384],
      "the engine's prompt time, read from the final frame, is a throughput reading",
    );
  });
});

describe('output faults between two engines', () => {
  let first: SimEngine;
  let second: SimEngine;
  let hub: HubProcess;
  before(async () => {
    first = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    second = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: first.url, VLLM_URL: second.url } });
  });
  after(async () => {
    await hub.stop();
    await Promise.all([first.close(), second.close()]);
  });

  it('fails a degenerate non-streamed answer over to the next engine, so the app gets a real one', async () => {
    await first.setFault({ mode: 'unused', count: 1 });
    const res = await ask(hub, '/v1/chat/completions', false);
    assert.equal(res.status, 200);
    assert.equal(res.backend, 'vllm');
    assert.doesNotMatch(res.text, /<unused/);
    const r = await row(hub, res.id);
    assert.equal(r.outcome, 'served');
    assert.deepEqual(
      r.attempts.map((a) => a.reason),
      ['output fault (degenerate-output)'],
    );
  });

  it('withholds an engine after its second fault within five minutes: retries go elsewhere first, and it is still asked last', async () => {
    await first.setFault({ mode: 'cut', count: 1 });
    await ask(hub, '/api/chat', true); // the first's second fault (after the degenerate answer above)
    const before = first.state().requests;
    const res = await ask(hub, '/v1/chat/completions', true);
    assert.equal(res.backend, 'vllm', 'the withheld engine goes behind the other');
    assert.equal(first.state().requests, before, 'and is not asked while another answers');
    // The row says why the engine the ranker put first was skipped.
    const skipped = (await row(hub, res.id)).withheld;
    assert.equal(skipped?.overridden, false);
    assert.deepEqual(
      skipped?.demoted.map((d) => [d.node, d.backend, d.reason]),
      [['local', 'ollama', 'truncated-upstream']],
    );
    assert.ok(Date.parse(skipped!.demoted[0]!.until) > Date.now());
    // One warn line names the engine and the fault as it is withheld; the strikes before it say nothing.
    const warned = hub
      .log()
      .split('\n')
      .filter((l) => l.includes('withholding'))
      .map((l) => JSON.parse(l) as { level: number; engine: string; fault: string });
    assert.deepEqual(
      warned.map((w) => [w.level, w.engine, w.fault]),
      [[40, `local|ollama|${MODEL}`, 'truncated-upstream']],
    );
    await second.setFault({ mode: 'error', status: 503, count: 1 });
    const last = await ask(hub, '/v1/chat/completions', true);
    assert.equal(last.backend, 'ollama', 'still asked when every other candidate fails');
    assert.equal((await row(hub, last.id)).withheld?.overridden, true, 'placed on the withheld engine anyway');
  });
});

describe('output faults on one of two local Ollamas (OLLAMA_URL lists both)', () => {
  let first: SimEngine;
  let second: SimEngine;
  let hub: HubProcess;
  before(async () => {
    first = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    second = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: `${first.url},${second.url}` } });
  });
  after(async () => {
    await hub.stop();
    await Promise.all([first.close(), second.close()]);
  });

  it('does not call a request the other Ollama served "placed anyway" on the withheld one', async () => {
    // Idle and tied, the engines rank in the order OLLAMA_URL lists them: both faults land on ollama-1.
    await first.setFault({ mode: 'unused', count: 2 });
    let faulty = '';
    for (let i = 0; i < 2; i++) faulty = (await ask(hub, '/api/chat', true)).id;
    assert.equal(second.state().requests, 0, 'both faulty answers came from ollama-1');
    // The strike is recorded before the row settles, which can be just after the app read the body.
    await eventually(async () => (await row(hub, faulty)).outcome !== 'pending', 'the second faulty row to settle');
    await first.clearFaults();
    const res = await ask(hub, '/api/chat', true);
    const r = await row(hub, res.id);
    assert.deepEqual([r.outcome, r.failedOverFrom, r.backend, r.backendId], ['served', [], 'ollama', 'ollama-2']);
    assert.deepEqual(
      r.withheld?.demoted.map((d) => [d.node, d.backend, d.backendId]),
      [['local', 'ollama', 'ollama-1']],
    );
    assert.equal(r.withheld?.overridden, false);
  });
});

describe('a model an engine lists but cannot serve', () => {
  let broken: SimEngine;
  let sound: SimEngine;
  let hub: HubProcess;
  before(async () => {
    broken = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    sound = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: broken.url, VLLM_URL: sound.url } });
  });
  after(async () => {
    await hub.stop();
    await Promise.all([broken.close(), sound.close()]);
  });

  it('stops offering it there after two failures within five minutes (the core-4 incident)', async () => {
    await broken.setFault({
      mode: 'error',
      status: 500,
      body: '{"error":"model failed to load, this may be due to resource limitations or an internal error"}',
    });
    for (let i = 0; i < 2; i++) assert.equal((await ask(hub, '/v1/chat/completions', false)).backend, 'vllm');
    const before = broken.state().requests;
    const res = await ask(hub, '/v1/chat/completions', false);
    assert.equal(res.backend, 'vllm');
    assert.equal(broken.state().requests, before, 'the engine that cannot serve it is not a candidate now');
  });

  it('does not count a verdict on the request against the model', async () => {
    const hub2 = await startHubProcess({ env: { OLLAMA_URL: broken.url, VLLM_URL: '' } });
    try {
      await broken.setFault({ mode: 'error', status: 500, body: '{"error":"no user query found in messages"}' });
      for (let i = 0; i < 3; i++) assert.equal((await ask(hub2, '/v1/chat/completions', false)).status, 400);
      await broken.clearFaults();
      assert.equal((await ask(hub2, '/v1/chat/completions', false)).status, 200, 'still a candidate after three refused requests');
    } finally {
      await hub2.stop();
    }
  });
});
