/**
 * The simulator reports its own queue the way the engines do, and the Hub's readers understand
 * it: vLLM's /metrics gauges and llama.cpp's /slots follow the scheduler live. Long answers at
 * real speed keep the slots busy while the reports are read; every request is aborted after.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Agent } from 'undici';
import { scaled } from '../../test/helpers/time-scale.js';
import { readEngineQueue } from '../engines/engine-queue-reader.js';
import { parseLlamaSlots } from '../engines/llamacpp-slots.js';
import { parseVllmQueue } from '../engines/vllm-metrics.js';
import { startSimEngine, type SimEngine } from './engine.js';
import { getReply, waitFor } from './test-helpers.js';
import type { SimEngineOptions } from './types.js';

const SUITE_TIMEOUT_MS = scaled(60_000);

async function withEngine(opts: SimEngineOptions, run: (e: SimEngine) => Promise<void>): Promise<void> {
  const engine = await startSimEngine(opts);
  try {
    await run(engine);
  } finally {
    await engine.close();
  }
}

/** Opens `n` chats that answer at one token a second for an hour: they hold slots and queue until aborted. */
function longChats(engine: SimEngine, n: number, abort: AbortController): Promise<unknown>[] {
  return Array.from({ length: n }, (_, i) =>
    fetch(`${engine.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm1', stream: true, messages: [{ role: 'user', content: `direct client ${i}` }] }),
      signal: abort.signal,
    })
      .then((res) => res.text())
      .catch(() => undefined),
  );
}

const LONG = { decodeTps: 1, answerTokens: 3_600, timeScale: 1 } as const;

describe('the simulator reports its queue as the engines do', { timeout: SUITE_TIMEOUT_MS }, () => {
  it("serves vLLM's /metrics as Prometheus text whose gauges follow the scheduler", async () => {
    await withEngine({ dialect: 'vllm', models: ['m1'], slots: 1, ...LONG }, async (engine) => {
      const idle = await getReply(`${engine.url}/metrics`);
      assert.equal(idle.status, 200);
      assert.match(idle.contentType, /^text\/plain; version=0\.0\.4/);
      assert.match(idle.text, /^# TYPE vllm:num_requests_waiting gauge$/m);
      assert.deepEqual(parseVllmQueue(idle.text), { running: 0, waiting: 0 });

      const abort = new AbortController();
      const calls = longChats(engine, 4, abort);
      try {
        await waitFor(() => engine.state().queued === 3, 'one running and three queued');
        assert.deepEqual(parseVllmQueue((await getReply(`${engine.url}/metrics`)).text), { running: 1, waiting: 3 });
      } finally {
        abort.abort();
        await Promise.all(calls);
      }
    });
  });

  it("serves llama.cpp's /slots with the busy slots flagged", async () => {
    await withEngine({ dialect: 'llamacpp', models: ['m1'], slots: 3, ...LONG }, async (engine) => {
      const abort = new AbortController();
      const calls = longChats(engine, 2, abort);
      try {
        await waitFor(() => engine.state().inFlight === 2, 'two busy slots');
        const reply = await getReply(`${engine.url}/slots`);
        assert.deepEqual(parseLlamaSlots(JSON.parse(reply.text)), { slots: 3, busy: 2 });
      } finally {
        abort.abort();
        await Promise.all(calls);
      }
    });
  });

  it("is read by the Hub's queue readers for each engine kind", async () => {
    const dispatcher = new Agent();
    const signal = new AbortController().signal;
    try {
      await withEngine({ dialect: 'vllm', models: ['m1'] }, async (engine) => {
        assert.deepEqual(await readEngineQueue('vllm', engine.url, dispatcher, signal), { running: 0, waiting: 0, slots: null });
      });
      await withEngine({ dialect: 'llamacpp', models: ['m1'], slots: 2 }, async (engine) => {
        assert.deepEqual(await readEngineQueue('llamacpp', engine.url, dispatcher, signal), { running: 0, waiting: null, slots: 2 });
      });
      await withEngine({ dialect: 'ollama', models: ['m1'] }, async (engine) => {
        assert.equal(
          await readEngineQueue('ollama', engine.url, dispatcher, signal),
          null,
          'Ollama publishes no queue, and /api/ps is read only while a model is withheld',
        );
      });
      await withEngine({ dialect: 'lemonade', models: ['m1'] }, async (engine) => {
        assert.equal(await readEngineQueue('lemonade', engine.url, dispatcher, signal), null, 'Lemonade publishes nothing the Hub reads');
      });
    } finally {
      await dispatcher.destroy();
    }
  });
});
