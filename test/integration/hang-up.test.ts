/**
 * Client hang-ups (spec, "Client hang-ups"): the engine request is aborted, nothing is failed
 * over, and the row says the caller left and which node it was waiting on.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

describe('a caller that hangs up', () => {
  let slow: SimEngine;
  let other: SimEngine;
  let hub: HubProcess;

  before(async () => {
    // A slow prefill: ~20 simulated seconds for this prompt, 200 ms of wall time.
    slow = await startSimEngine({ dialect: 'ollama', models: [{ name: 'big:70b', prefillTps: 50, decodeTps: 5, answerTokens: 1000 }], timeScale: 0.01 });
    other = await startSimEngine({ dialect: 'vllm', models: ['big:70b'], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: slow.url, VLLM_URL: other.url } });
  });
  after(async () => {
    await hub.stop();
    await Promise.all([slow.close(), other.close()]);
  });

  it('aborts the engine request, fails nothing over, and records the node it was waiting on', async () => {
    const abort = new AbortController();
    const pending = request(`${hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'big:70b', messages: [{ role: 'user', content: 'word '.repeat(1000) }] }),
      signal: abort.signal,
    });
    await eventually(() => slow.state().inFlight > 0, 'the engine to start the request');
    abort.abort();
    await assert.rejects(pending);

    await eventually(() => slow.state().aborted === 1, 'the engine to see the abort');
    assert.equal(other.state().requests, 0, 'a hang-up is never failed over');
    const r = await eventually(async () => {
      const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
      return json.entries.find((e) => e.outcome !== 'pending');
    }, 'the row to settle');
    assert.equal(r.outcome, 'failed');
    assert.equal(r.clientClosed, true);
    assert.equal(r.status, null);
    assert.equal(r.node, 'local');
    assert.equal(r.backend, 'ollama');
    assert.equal(r.attempt, 1);
    const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
    assert.equal(json.summary.counts.clientClosed, 1);
  });

  it('stops a stream the caller leaves part-way and frees the engine', async () => {
    const abort = new AbortController();
    const res = await request(`${hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'big:70b', messages: [{ role: 'user', content: 'short' }], options: { num_predict: 400 } }),
      signal: abort.signal,
    });
    assert.equal(res.statusCode, 200);
    for await (const _chunk of res.body) break;
    abort.abort();
    await eventually(() => slow.state().aborted === 2 && slow.state().inFlight === 0, 'the engine to stop generating');
  });
});
