/**
 * Client hang-ups (spec, "Client hang-ups"): the engine request is aborted, nothing is failed
 * over, and the row says the caller left and which node it was waiting on.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { ServerResponse } from 'node:http';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import { startEngineFront, type EngineFront } from '../helpers/engine-front.js';
import { eventually, logMessages, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { chatThatStopsReading } from '../helpers/raw-http.js';

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
    assert.equal(r.stoppedReadingMs, null, 'the app closed its own connection');
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

describe('a caller that hangs up after the engine answered, before the Hub sent it headers', () => {
  let ollama: SimEngine;
  let front: EngineFront;
  let hub: HubProcess;
  // One model per case, so each case finds its own row (the app that left has no request id).
  const modelFor = (status: number) => `held:8b-${status}`;

  before(async () => {
    ollama = await startSimEngine({ dialect: 'ollama', models: [modelFor(200), modelFor(500)], timeScale: 0.01 });
    front = await startEngineFront(ollama.url);
    hub = await startHubProcess({ env: { OLLAMA_URL: front.url } });
  });
  after(async () => {
    await hub.stop();
    await front.close();
    await ollama.close();
  });

  /**
   * The engine answers `status` and holds its body: the Hub reads a non-streamed answer whole,
   * and a 500's body for a verdict, before it writes anything to the app. The app leaves once
   * the Hub has had the engine's headers (it answered a request sent after they were written).
   */
  async function leaveWhileTheHubReads(status: number): Promise<RoutingLogEntry> {
    const model = modelFor(status);
    let engineClosed!: () => void;
    const closed = new Promise<void>((resolve) => (engineClosed = resolve));
    let headersWritten!: () => void;
    const written = new Promise<void>((resolve) => (headersWritten = resolve));
    front.takeNextCompletion((_req, res: ServerResponse) => {
      res.on('close', engineClosed);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.write('{"model":', () => headersWritten());
    });
    const abort = new AbortController();
    const pending = request(`${hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: false, messages: [{ role: 'user', content: 'hi' }] }),
      signal: abort.signal,
    });
    await written;
    await hub.api('GET', '/api/inference/pool/routing-log');
    abort.abort();
    await assert.rejects(pending, 'the app got no response headers');
    await closed;
    return eventually(async () => {
      const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
      return json.entries.find((e) => e.model === model && e.outcome !== 'pending');
    }, 'the row to settle');
  }

  for (const status of [200, 500]) {
    it(`records no status and the before-headers reason when the engine had answered ${status} (what the app saw)`, async () => {
      const r = await leaveWhileTheHubReads(status);
      assert.equal(r.outcome, 'failed');
      assert.equal(r.clientClosed, true);
      assert.equal(r.status, null, 'the app was sent no status');
      assert.equal(r.durationMs, null, 'the app was sent no response headers');
      assert.equal(r.reason, 'the caller closed its connection before any answer');
      assert.equal(r.node, 'local', 'the node it was waiting on');
      assert.equal(r.backend, 'ollama');
    });
  }
});

describe('a caller that stops reading without closing (asleep, its NAT mapping gone)', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  const STALL_BUDGET_MS = 1_000;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: 'fast:8b', decodeTps: 5_000, answerTokens: 1_000_000 }], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url, HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(STALL_BUDGET_MS) } });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('is taken as gone once its socket stays full for the budget: the engine stops, and the row, the log and `cihub pool log` say it stopped reading', async () => {
    // Read the head, then nothing more: the app is alive on the wire but never reads again.
    const socket = await chatThatStopsReading(hub, 'fast:8b');
    try {
      await eventually(() => engine.state().aborted === 1 && engine.state().inFlight === 0, 'the engine to be told to stop');
      const r = await eventually(async () => {
        const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
        return json.entries.find((e) => e.model === 'fast:8b' && e.outcome !== 'pending');
      }, 'the row to settle');
      // Still the caller's hang-up, but the Hub closed the connection: the row says how long the app had stopped reading, not that it closed.
      assert.deepEqual(
        { outcome: r.outcome, clientClosed: r.clientClosed, stoppedReadingMs: r.stoppedReadingMs, status: r.status, reason: r.reason },
        {
          outcome: 'failed',
          clientClosed: true,
          stoppedReadingMs: STALL_BUDGET_MS,
          status: 200,
          reason: `the caller stopped reading for at least ${STALL_BUDGET_MS} ms`,
        },
      );
      const stoppedLine = `the caller stopped reading for at least ${STALL_BUDGET_MS} ms: this Hub closed its connection before the answer was complete`;
      const said = await eventually(() => {
        const messages = logMessages(hub.log());
        return messages.includes(stoppedLine) && messages;
      }, "the Hub's log line for the cut");
      assert.ok(!said.includes('the caller closed its connection before the answer was complete'), 'no line says the caller closed it');
      const run = await runCli(['pool', 'log'], { dataDir: hub.dataDir });
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stdout,
        new RegExp(
          `↳ the app stopped reading for at least ${STALL_BUDGET_MS} ms, so this Hub closed its connection after \\d+ ms; local was part-way through its answer \\(HTTP 200\\)`,
        ),
      );
      assert.doesNotMatch(run.stdout, /the app closed its connection/);
    } finally {
      socket.destroy();
    }
  });
});
