/**
 * Engines' 500s that are verdicts on the request (spec, "A request no node can serve"): the
 * 2026-09-26 walk over nine candidates for a body no engine could answer, reproduced with three
 * simulated engines, and the rules that end it.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

// Two failures of one engine within five minutes withhold that model there, so each test asks
// for its own model: the rules under test must not see each other's strikes.
const MODELS = Array.from({ length: 16 }, (_, i) => `qwen3:8b-t${i}`);
let testIndex = 0;
let model = MODELS[0]!;
beforeEach(() => {
  model = MODELS[testIndex++ % MODELS.length]!;
});
const OLLAMA_NO_USER_QUERY = '{"error":"no user query found in messages"}';
const LLAMA_MISSING_CONTENT = '{"error":{"code":500,"message":"Missing \'content\' in message","type":"server_error"}}';
const OLLAMA_TEMPLATE = '{"error":"template: :3:10: executing \\"\\" at <.Messages>: error calling index"}';
const OLLAMA_CONTEXT = '{"error":"the input length exceeds the context length"}';

async function rowOf(hub: HubProcess, id: string): Promise<RoutingLogEntry> {
  const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
  const row = json.entries.find((e) => e.id === id);
  assert.ok(row, `row ${id}`);
  return row;
}

async function chat(hub: HubProcess): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const res = await request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'system', content: 'no user turn' }] }),
  });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

describe('verdicts on the request', () => {
  // Three engines hold the model; the Hub tries them in configured order when all are idle.
  let ollama: SimEngine;
  let vllm: SimEngine;
  let llama: SimEngine;
  let hub: HubProcess;

  before(async () => {
    ollama = await startSimEngine({ dialect: 'ollama', models: MODELS, timeScale: 0.01 });
    vllm = await startSimEngine({ dialect: 'vllm', models: MODELS, timeScale: 0.01 });
    llama = await startSimEngine({ dialect: 'llamacpp', models: MODELS, timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url, VLLM_URL: vllm.url, LLAMACPP_URL: llama.url } });
  });
  afterEach(async () => {
    await Promise.all([ollama.clearFaults(), vllm.clearFaults(), llama.clearFaults()]);
  });
  after(async () => {
    await hub.stop();
    await Promise.all([ollama.close(), vllm.close(), llama.close()]);
  });

  const requests = () => [ollama.state().requests, vllm.state().requests, llama.state().requests];

  it('returns a conversation with no user turn at once, as a 400 the OpenAI SDK does not retry (the 307 s walk of 2026-09-26)', async () => {
    await Promise.all([ollama, vllm, llama].map((e) => e.setFault({ mode: 'error', status: 500, body: OLLAMA_NO_USER_QUERY })));
    const before = requests();
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'x', maxRetries: 2 });
    await assert.rejects(client.chat.completions.create({ model, messages: [{ role: 'system', content: 'x' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.BadRequestError);
      assert.match(err.message, /no user query found in messages/);
      assert.equal(err.headers?.get('x-hub-pool-upstream-status'), '500');
      return true;
    });
    const after = requests();
    assert.deepEqual(
      after.map((n, i) => n - before[i]!),
      [1, 0, 0],
      'one engine asked, once: no failover and no SDK retry',
    );
  });

  it("records the verdict by signature and basis, never the engine's text", async () => {
    await ollama.setFault({ mode: 'error', status: 500, body: OLLAMA_NO_USER_QUERY });
    const res = await chat(hub);
    assert.equal(res.status, 400);
    const row = await rowOf(hub, String(res.headers['x-hub-pool-request-id']));
    assert.equal(row.outcome, 'failed');
    assert.equal(row.status, 500);
    assert.equal(row.node, 'local');
    assert.deepEqual(row.requestError, { signature: 'no-user-query', basis: 'definitive', confirms: null });
    assert.ok(!JSON.stringify(row).includes('no user query found'));
    const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
    assert.ok(json.summary.counts.requestErrors >= 1);
  });

  it('walks on past a malformed-message refusal while an engine of another kind is still ahead, and answers when the next one agrees', async () => {
    // Ollama first refuses; vLLM (another kind) is asked and agrees; llama.cpp, a third kind, is
    // still ahead, so the walk goes on and llama.cpp agrees too: it is the last, so it answers.
    await Promise.all([ollama, vllm, llama].map((e) => e.setFault({ mode: 'error', status: 500, body: LLAMA_MISSING_CONTENT })));
    const before = requests();
    const res = await chat(hub);
    assert.equal(res.status, 400);
    assert.match(res.body, /Missing 'content' in message/);
    assert.deepEqual(
      requests().map((n, i) => n - before[i]!),
      [1, 1, 1],
    );
    const row = await rowOf(hub, String(res.headers['x-hub-pool-request-id']));
    assert.equal(row.requestError?.signature, 'invalid-message');
    assert.deepEqual(
      row.attempts.map((a) => a.reason),
      ['HTTP 500 (invalid-message)', 'HTTP 500 (invalid-message)'],
    );
  });

  it('serves the request when the next engine answers instead of agreeing', async () => {
    await ollama.setFault({ mode: 'error', status: 500, body: LLAMA_MISSING_CONTENT });
    const res = await chat(hub);
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-hub-pool-backend'], 'vllm');
  });

  it("keeps the engine's 500 for a template that would not render (the node's own copy may be broken)", async () => {
    await Promise.all([ollama, vllm, llama].map((e) => e.setFault({ mode: 'error', status: 500, body: OLLAMA_TEMPLATE })));
    const res = await chat(hub);
    assert.equal(res.status, 500);
    assert.equal(res.headers['x-hub-pool-upstream-status'], undefined);
    const row = await rowOf(hub, String(res.headers['x-hub-pool-request-id']));
    assert.equal(row.requestError?.signature, 'chat-template');
  });

  it("returns a waiting verdict from the last candidate rather than a 502 that loses the engine's words", async () => {
    await Promise.all([ollama, vllm, llama].map((e) => e.setFault({ mode: 'error', status: 500, body: OLLAMA_CONTEXT })));
    const res = await chat(hub);
    assert.equal(res.status, 400);
    const row = await rowOf(hub, String(res.headers['x-hub-pool-request-id']));
    assert.deepEqual(row.requestError, { signature: 'context-length', basis: 'last-candidate', confirms: null });
    assert.equal(row.attempt, 3);
  });

  it('still ends in the 502 when the last candidate failed some other way, whatever an earlier one said', async () => {
    await ollama.setFault({ mode: 'error', status: 500, body: OLLAMA_CONTEXT });
    await vllm.setFault({ mode: 'error', status: 503 });
    await llama.setFault({ mode: 'error', status: 503 });
    const res = await chat(hub);
    assert.equal(res.status, 502);
  });

  it('fails over a 500 whose body matches nothing, as before', async () => {
    await ollama.setFault({ mode: 'error', status: 500, body: '{"error":"CUDA error: out of memory"}' });
    const res = await chat(hub);
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-hub-pool-backend'], 'vllm');
  });

  it("reads no verdict from a body that is not an engine's JSON error", async () => {
    await ollama.setFault({ mode: 'error', status: 500, body: 'no user query found in messages' });
    const res = await chat(hub);
    assert.equal(res.status, 200);
  });
});

describe("a prompt over the window, against a local Lemonade's stated window", () => {
  // A local Ollama on a node capped at 8192, and a local Lemonade listing the model at the same window.
  const WINDOW = 8192;
  let ollama: SimEngine;
  let lemonade: SimEngine;
  let hub: HubProcess;

  before(async () => {
    ollama = await startSimEngine({ dialect: 'ollama', models: MODELS, timeScale: 0.01 });
    lemonade = await startSimEngine({ dialect: 'lemonade', models: MODELS, timeScale: 0.01, defaultNumCtx: WINDOW });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url, LEMONADE_URL: lemonade.url } });
    const capped = await hub.api('PATCH', '/api/user-settings', { inferenceMaxNumCtx: WINDOW });
    assert.equal(capped.status, 200, JSON.stringify(capped.json));
  });
  after(async () => {
    await hub.stop();
    await Promise.all([ollama.close(), lemonade.close()]);
  });

  it('confirms the Ollama refusal when the Lemonade, running the same window it states, agrees', async () => {
    await Promise.all([ollama, lemonade].map((e) => e.setFault({ mode: 'error', status: 500, body: OLLAMA_CONTEXT })));
    const res = await chat(hub);
    assert.equal(res.status, 400, res.body);
    const row = await rowOf(hub, String(res.headers['x-hub-pool-request-id']));
    assert.deepEqual(row.requestError, { signature: 'context-length', basis: 'confirmed', confirms: 'local' });
    assert.deepEqual(
      row.attempts.map((a) => a.backend),
      ['ollama'],
    );
    assert.equal(row.backend, 'lemonade');
  });
});
