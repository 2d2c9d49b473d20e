/**
 * An engine's own queue report in placement, through real Hubs (issue 10, item 11; the gap the
 * spec names under "Ranking": traffic that reaches an engine directly is invisible to the
 * proxy's count). hub-a's vLLM runs one request at a time; four apps call it on its own port,
 * bypassing the Hub, so it runs one and holds three waiting. hub-b's vLLM holds the same model,
 * idle. hub-a reads vLLM's /metrics behind its health snapshot, so the work it never placed
 * counts in its queue depth: the next request goes to hub-b, and hub-a publishes the load to
 * its peers. An idle hub-a keeps the request local, so the move is the report's doing.
 *
 * Then llama.cpp: hub-a's llama-server runs one slot and says so on /slots. With
 * poolSlotAwareness on and no slot statement, that count is hub-a's statement for it, so one
 * direct client fills it and the next request goes behind hub-b's free slots; a statement by
 * the operator wins over the engine's count.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimEngine } from '../../src/sim/engine.js';
import { eventually, runCli } from '../helpers/hub-process.js';
import { chat, LONG_TEST_TIMEOUT_MS, type PoolHub, type SimEngine, START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import type { PoolStatus } from '../../src/status/pool-status.js';

const MODEL = 'Qwen/Qwen3-8B';
const POLL_SECONDS = 10;

/** The Hub's own chats ask for two tokens: on hub-a's one-token-a-second engine that is quick at the simulator's time scale. */
const SHORT = { max_tokens: 2 };

async function placedOn(hub: PoolHub, model = MODEL) {
  const res = await chat(hub, model, SHORT);
  assert.equal(res.status, 200, res.text.slice(0, 300));
  const row = await hub.settledRow(String(res.headers['x-hub-pool-request-id']));
  return row.node;
}

/** Opens `n` streamed chats straight at the engine's own port, as apps that bypass the Hub do; they run until aborted. */
function directClients(engine: SimEngine, n: number, abort: AbortController, model = MODEL): Promise<unknown>[] {
  return Array.from({ length: n }, (_, i) =>
    fetch(`${engine.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: `a client of the engine itself, ${i}` }] }),
      signal: abort.signal,
    })
      .then((res) => res.text())
      .catch(() => undefined),
  );
}

const backendOf = (status: PoolStatus, kind: string) => status.localNode.backends.find((b) => b.kind === kind);

describe("an engine's own queue report", () => {
  const pool = usePool<'a' | 'b'>({
    hubs: {
      // One slot, one token a second: a direct client's answer (a million tokens) outlasts the test.
      a: { vllm: { models: [MODEL], slots: 1, decodeTps: 1, answerTokens: 1_000_000 }, ollama: { models: ['other:1b'] } },
      b: { vllm: { models: [MODEL] } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it('keeps a request on an idle local engine that says it is idle', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a } = pool();
    const vllm = await eventually(async () => {
      const b = backendOf(await a.status(), 'vllm');
      return b?.engineReported ? b : null;
    }, "hub-a to read its vLLM's /metrics");
    assert.deepEqual([vllm.engineReported?.running, vllm.engineReported?.waiting, vllm.queueDepth], [0, 0, 0]);
    assert.equal(await placedOn(a), 'local');
  });

  it('places on the other node when the local engine reports three requests waiting from other clients', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const engine = a.engines.vllm!;
    const abort = new AbortController();
    const clients = directClients(engine, 4, abort);
    try {
      await eventually(() => engine.state().queued === 3, 'the engine to run one direct request and queue three');
      assert.equal((await a.status()).localNode.backends.find((x) => x.kind === 'vllm')?.inFlight, 0, "hub-a's proxy placed none of them");

      const seen = await eventually(async () => {
        const v = backendOf(await a.status(), 'vllm');
        return v?.engineReported?.waiting === 3 ? v : null;
      }, "hub-a to read the engine's queue");
      assert.deepEqual(seen.engineReported, {
        running: 1,
        waiting: 3,
        slots: null,
        beyondThisHub: 4,
        reportedMsAgo: seen.engineReported?.reportedMsAgo,
      });
      assert.equal(seen.queueDepth, 4, "the queue depth placement reads counts the engine's own report");

      assert.equal(await placedOn(a), b.name, 'the request goes to the idle peer, not behind three waiting requests');

      // This node's queue depth is what it publishes, so its peers see the load too.
      const asSeenByB = await b.waitForPeer(a, 'publishing the load', (p) => p.inFlightRequests === 4, (POLL_SECONDS * 2 + 5) * 1000);
      assert.equal(asSeenByB.inFlightRequests, 4);

      // The operator sees the engine's own figures per backend, and null where an engine said nothing.
      const cli = await runCli(['pool', 'status', '--json'], { dataDir: a.dataDir });
      assert.equal(cli.code, 0, cli.stderr);
      const status = JSON.parse(cli.stdout) as PoolStatus;
      assert.deepEqual([backendOf(status, 'vllm')?.engineReported?.running, backendOf(status, 'vllm')?.engineReported?.waiting], [1, 3]);
      assert.equal(backendOf(status, 'ollama')?.engineReported, null, 'Ollama reports no queue, and is not asked for one: null, not 0');
    } finally {
      abort.abort();
      await Promise.all(clients);
    }
    await eventually(() => engine.state().inFlight === 0 && engine.state().queued === 0, 'the direct clients to be gone');
  });
});

describe("llama.cpp's own slot count", () => {
  const LLAMA_MODEL = 'qwen3:8b';
  let llama: SimEngine;

  before(
    async () => {
      llama = await startSimEngine({ dialect: 'llamacpp', models: [LLAMA_MODEL], slots: 1, decodeTps: 1, answerTokens: 1_000_000, timeScale: 0.01 });
    },
    { timeout: START_TIMEOUT_MS },
  );
  const pool = usePool<'a' | 'b'>(() => ({
    hubs: {
      a: { env: { LLAMACPP_URL: llama.url } },
      b: { ollama: { models: [LLAMA_MODEL] }, settings: { inferenceOllamaSlots: 4 } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: POLL_SECONDS, poolSlotAwareness: 1 },
  }));
  after(
    async () => {
      await llama?.close();
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('stands for the slot statement when none is made, and the statement wins when one is', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await eventually(async () => (await a.status()).peers.find((p) => p.nodeFqdn === b.name)?.ollamaSlots === 4, "hub-a to read hub-b's 4 slots");
    const reported = await eventually(async () => backendOf(await a.status(), 'llamacpp')?.engineReported ?? null, "hub-a to read llama-server's /slots");
    assert.deepEqual([reported.slots, reported.running], [1, 0]);
    assert.equal(await placedOn(a, LLAMA_MODEL), 'local', 'a free slot here: the request stays');

    const abort = new AbortController();
    const clients = directClients(llama, 1, abort, LLAMA_MODEL);
    try {
      await eventually(
        async () => (backendOf(await a.status(), 'llamacpp')?.engineReported?.running === 1 ? true : null),
        "hub-a to see the engine's one slot busy",
      );
      const res = await chat(a, LLAMA_MODEL, SHORT);
      assert.equal(res.status, 200, res.text.slice(0, 300));
      const row = await a.settledRow(String(res.headers['x-hub-pool-request-id']));
      assert.equal(row.node, b.name, 'the one slot is full: the request goes behind the peer with free slots');
      assert.deepEqual(row.slots?.demoted, [{ node: 'local', backend: 'llamacpp', backendId: 'llamacpp', inFlight: 1, loadReported: true, slots: 1 }]);

      // The operator's statement wins over the engine's count: two slots stated, one busy, so
      // placement sees room here. The engine has one slot, so the request then queues behind the
      // direct client there: seen on the engine, then let go.
      await a.patchSettings({ inferenceOllamaSlots: 2 });
      const queued = chat(a, LLAMA_MODEL, SHORT);
      await eventually(() => llama.state().queued === 1, "the request placed on hub-a's engine, waiting for its one slot");
      abort.abort();
      const answer = await queued;
      assert.equal(answer.status, 200, answer.text.slice(0, 300));
      assert.equal((await a.settledRow(String(answer.headers['x-hub-pool-request-id']))).node, 'local');
    } finally {
      abort.abort();
      await Promise.all(clients);
    }
  });
});
