import assert from 'node:assert/strict';
import { scaled } from '../../test/helpers/time-scale.js';
import { describe, it } from 'node:test';
import { startSimEngine, type SimEngine } from './engine.js';
import { parseNdjson, postJson, waitFor } from './test-helpers.js';
import type { SimEngineOptions } from './types.js';

/** A wedged exchange fails the suite instead of stalling a shared test run. */
const HTTP_SUITE_TIMEOUT_MS = scaled(60_000); // stretched by HUB_TEST_TIME_SCALE on a loaded machine

async function withEngine(opts: SimEngineOptions, run: (e: SimEngine) => Promise<void>): Promise<void> {
  const engine = await startSimEngine(opts);
  try {
    await run(engine);
  } finally {
    await engine.close();
  }
}

/** Node timers may fire a fraction of a millisecond early; lower bounds allow for it. */
const TIMER_SLACK = 0.9;

const chatBody = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'm1', messages: [{ role: 'user', content }], ...extra });

/** Starts a request and resolves with the wall time to its response headers; the body is left unread. */
async function timeToHeaders(url: string, body: unknown, signal?: AbortSignal): Promise<{ ms: number; res: Response }> {
  const start = performance.now();
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body), ...(signal === undefined ? {} : { signal }) });
  return { ms: performance.now() - start, res };
}

describe('slots and queueing', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('queues a third request behind two busy slots and never rejects it', async () => {
    // Long answers at real speed keep both slots busy while the state is read.
    await withEngine({ dialect: 'ollama', models: ['m1'], slots: 2, decodeTps: 10, answerTokens: 100, loadMs: 0, timeScale: 1 }, async (engine) => {
      const ac = new AbortController();
      const calls = [1, 2, 3].map((i) =>
        fetch(`${engine.url}/api/chat`, { method: 'POST', body: JSON.stringify(chatBody(`request ${i}`)), signal: ac.signal }).catch(() => undefined),
      );
      await waitFor(() => engine.state().queued === 1, 'one queued request');
      const state = engine.state();
      assert.equal(state.inFlight, 2);
      assert.deepEqual([state.perModel['m1:latest']?.inFlight, state.perModel['m1:latest']?.queued], [2, 1]);
      ac.abort();
      await Promise.all(calls);
      await waitFor(() => engine.state().aborted === 3, 'three aborts');
      assert.deepEqual([engine.state().inFlight, engine.state().queued], [0, 0]);
    });
  });

  it('frees the slot of an aborted stream so the next request runs', async () => {
    await withEngine({ dialect: 'vllm', models: ['m1'], decodeTps: 10, answerTokens: 100, timeScale: 1 }, async (engine) => {
      const ac = new AbortController();
      const { res } = await timeToHeaders(`${engine.url}/v1/chat/completions`, chatBody('first', { stream: true }), ac.signal);
      assert.equal(res.status, 200);
      ac.abort();
      await waitFor(() => engine.state().aborted === 1 && engine.state().inFlight === 0, 'the abort to free the slot');
      const next = await postJson(`${engine.url}/v1/chat/completions`, chatBody('second', { max_tokens: 1 }));
      assert.equal(next.status, 200);
      assert.equal(engine.state().perModel['m1']?.aborted, 1);
    });
  });
});

describe('prefix cache', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('keeps two conversations warm in two slots and reports the hit on the follow-up turn', async () => {
    await withEngine({ dialect: 'llamacpp', models: ['m1'], slots: 2, timeScale: 0.001 }, async (engine) => {
      type Reply = { choices: Array<{ message: { content: string } }>; timings: { cache_n: number; prompt_n: number } };
      const ask = async (messages: unknown[]): Promise<Reply> =>
        JSON.parse((await postJson(`${engine.url}/v1/chat/completions`, { model: 'm1', messages })).text) as Reply;
      const a1 = [{ role: 'user', content: 'conversation A opens with a long question about pools '.repeat(4) }];
      const b1 = [{ role: 'user', content: 'conversation B is about something else entirely, at length '.repeat(4) }];
      const aReply = await ask(a1);
      await ask(b1);
      assert.deepEqual(
        engine.state().perModel['m1']?.slotCachedTokens.every((n) => n > 0),
        true,
        'each conversation holds a slot',
      );
      const followUp = await ask([...a1, { role: 'assistant', content: aReply.choices[0]?.message.content }, { role: 'user', content: 'and then?' }]);
      assert.ok(followUp.timings.cache_n > followUp.timings.prompt_n, 'most of the follow-up comes from the cache');
    });
  });

  it('delays the first byte by the prefill of the uncached part only', async () => {
    await withEngine({ dialect: 'ollama', models: ['m1'], prefillTps: 1000, loadMs: 0, timeScale: 0.04 }, async (engine) => {
      const body = chatBody('x'.repeat(20_000)); // 5,000 tokens: 5 s simulated, 200 ms wall
      await postJson(`${engine.url}/api/chat`, chatBody('warm the model up'));
      const cold = await timeToHeaders(`${engine.url}/api/chat`, body);
      const coldFrames = parseNdjson(await cold.res.text());
      const warm = await timeToHeaders(`${engine.url}/api/chat`, body);
      const warmFrames = parseNdjson(await warm.res.text());
      // Scaled waits never end early, so the cold prefill's wall time is a safe lower bound.
      assert.ok(cold.ms >= 5000 * 0.04 * TIMER_SLACK, `cold first byte after ${cold.ms} ms`);
      const coldFinal = coldFrames.at(-1) ?? {};
      const warmFinal = warmFrames.at(-1) ?? {};
      assert.equal(coldFinal['prompt_eval_count'], warmFinal['prompt_eval_count'], 'the whole prompt is counted both times');
      assert.ok(Number(coldFinal['prompt_eval_duration']) > Number(warmFinal['prompt_eval_duration']) * 1000);
    });
  });
});

describe('reload on a changed num_ctx', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('waits for running requests, reloads at the new window, costs the load time and shows in /api/ps', async () => {
    // 0.1 makes the reload's 2 s load a 200 ms wall wait, well above what the rest of the exchange
    // takes on a busy machine, so a reload that skipped the wait shows below the bound.
    const scale = 0.1;
    const opts: SimEngineOptions = { dialect: 'ollama', models: ['m1'], slots: 2, loadMs: 2000, decodeTps: 100, answerTokens: 10, timeScale: scale };
    await withEngine(opts, async (engine) => {
      await postJson(`${engine.url}/api/chat`, chatBody('load at 4096', { stream: false }));
      const warm = JSON.parse((await postJson(`${engine.url}/api/chat`, chatBody('warm', { stream: false }))).text) as Record<string, number>;

      const ac = new AbortController();
      const long = fetch(`${engine.url}/api/chat`, {
        method: 'POST',
        body: JSON.stringify(chatBody('long', { options: { num_predict: 100_000 }, ignore_eos: true })),
        signal: ac.signal,
      }).catch(() => undefined);
      await waitFor(() => engine.state().inFlight === 1, 'the long request to run');
      const reload = postJson(`${engine.url}/api/chat`, chatBody('bigger window', { stream: false, options: { num_ctx: 8192 } }));
      await waitFor(() => engine.state().queued === 1, 'the reload to wait although a slot is free');
      assert.equal(engine.state().loadedNumCtx['m1:latest'], 4096);
      ac.abort();
      await long;
      // The slot frees only after this point (the engine hears of the abort later), so the load
      // that follows starts after this mark and its scaled wait is a lower bound on the rest.
      const reloadStart = performance.now();
      const reloaded = JSON.parse((await reload).text) as Record<string, number>;
      const reloadMs = performance.now() - reloadStart;

      assert.equal(engine.state().loadedNumCtx['m1:latest'], 8192);
      assert.equal(engine.state().perModel['m1:latest']?.loads, 2);
      assert.equal(reloaded['load_duration'], 2000 * 1e6);
      assert.ok(Number(reloaded['load_duration']) > Number(warm['load_duration']) * 100);
      assert.ok(reloadMs >= 2000 * scale * TIMER_SLACK, `reload took ${reloadMs} ms`);
      const ps = (await (await fetch(`${engine.url}/api/ps`)).json()) as { models: Array<{ context_length: number }> };
      assert.equal(ps.models[0]?.context_length, 8192);
    });
  });

  it('keeps the window when the request names the one already loaded', async () => {
    await withEngine({ dialect: 'ollama', models: ['m1'], timeScale: 0.001 }, async (engine) => {
      await postJson(`${engine.url}/api/chat`, chatBody('a', { stream: false, options: { num_ctx: 4096 } }));
      await postJson(`${engine.url}/api/chat`, chatBody('b', { stream: false }));
      assert.equal(engine.state().perModel['m1:latest']?.loads, 1);
    });
  });
});

describe('time scale', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('reports the same simulated durations at any scale and waits at least the scaled time', async () => {
    const run = async (timeScale: number): Promise<{ wallMs: number; final: Record<string, number> }> => {
      let out: { wallMs: number; final: Record<string, number> } | undefined;
      await withEngine({ dialect: 'ollama', models: ['m1'], loadMs: 0, decodeTps: 50, answerTokens: 40, timeScale }, async (engine) => {
        const start = performance.now();
        const final = JSON.parse((await postJson(`${engine.url}/api/generate`, { model: 'm1', prompt: 'p', stream: false })).text) as Record<string, number>;
        out = { wallMs: performance.now() - start, final };
      });
      assert.ok(out);
      return out;
    };
    const fast = await run(0.02);
    const slow = await run(0.2);
    assert.equal(fast.final['eval_duration'], 800 * 1e6);
    assert.equal(slow.final['eval_duration'], fast.final['eval_duration']);
    assert.equal(slow.final['eval_count'], 40);
    assert.ok(slow.wallMs >= 800 * 0.2 * TIMER_SLACK, `0.2 took ${slow.wallMs} ms`);
  });
});

describe('answer length', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('stops on its own at the natural answer length and reports length when max tokens cut it short', async () => {
    await withEngine({ dialect: 'ollama', models: ['m1'], answerTokens: 5, timeScale: 0.001 }, async (engine) => {
      const natural = JSON.parse((await postJson(`${engine.url}/api/generate`, { model: 'm1', prompt: 'p', stream: false })).text) as Record<string, unknown>;
      assert.deepEqual([natural['done_reason'], natural['eval_count']], ['stop', 5]);
      const capped = JSON.parse(
        (await postJson(`${engine.url}/api/generate`, { model: 'm1', prompt: 'p', stream: false, options: { num_predict: 3 } })).text,
      ) as Record<string, unknown>;
      assert.deepEqual([capped['done_reason'], capped['eval_count']], ['length', 3]);
      const again = JSON.parse((await postJson(`${engine.url}/api/generate`, { model: 'm1', prompt: 'p', stream: false })).text) as Record<string, unknown>;
      assert.equal(again['response'], natural['response'], 'the same prompt gives the same answer');
    });
  });
});
