import assert from 'node:assert/strict';
import { scaled } from '../../test/helpers/time-scale.js';
import { describe, it } from 'node:test';
import { startSimEngine, type SimEngine } from './engine.js';
import { DONE, parseNdjson, postJson, rawPost, waitFor } from './test-helpers.js';
import { UNUSED_TOKEN } from './tokens.js';
import type { SimEngineOptions, SimFault } from './types.js';

/** A wedged exchange fails the suite instead of stalling a shared test run. */
const HTTP_SUITE_TIMEOUT_MS = scaled(60_000); // stretched by HUB_TEST_TIME_SCALE on a loaded machine

async function withEngine(opts: Partial<SimEngineOptions> & Pick<SimEngineOptions, 'dialect'>, run: (e: SimEngine) => Promise<void>): Promise<void> {
  const engine = await startSimEngine({ models: ['m1', 'm2'], timeScale: 0.001, ...opts });
  try {
    await run(engine);
  } finally {
    await engine.close();
  }
}

const ollamaChat = (extra: Record<string, unknown> = {}) => ({ model: 'm1', messages: [{ role: 'user', content: 'hi' }], ...extra });
const openaiChat = (extra: Record<string, unknown> = {}) => ({ model: 'm1', messages: [{ role: 'user', content: 'hi' }], ...extra });

async function setFaultOverHttp(baseUrl: string, fault: SimFault): Promise<void> {
  const reply = await postJson(`${baseUrl}/__sim/faults`, fault);
  assert.equal(reply.status, 200, reply.text);
}

describe('fault: error', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('answers the given status and raw body for the next N requests, then recovers', async () => {
    await withEngine({ dialect: 'ollama' }, async (engine) => {
      await setFaultOverHttp(engine.url, { mode: 'error', status: 503, body: '{"error":"overloaded"}', count: 1 });
      assert.equal(engine.state().faults[0]?.remaining, 1);
      const failed = await postJson(`${engine.url}/api/chat`, ollamaChat());
      assert.deepEqual([failed.status, failed.contentType, failed.text], [503, 'application/json', '{"error":"overloaded"}']);
      assert.deepEqual(engine.state().faults, []);
      assert.equal((await postJson(`${engine.url}/api/chat`, ollamaChat())).status, 200);
    });
  });

  it("uses the engine's own error shape when no body is given, and only for the named model", async () => {
    await withEngine({ dialect: 'vllm' }, async (engine) => {
      await engine.setFault({ mode: 'error', model: 'm2' });
      assert.equal((await postJson(`${engine.url}/v1/chat/completions`, openaiChat())).status, 200);
      const failed = await postJson(`${engine.url}/v1/chat/completions`, openaiChat({ model: 'm2' }));
      assert.equal(failed.status, 500);
      const error = (JSON.parse(failed.text) as { error: Record<string, unknown> }).error;
      assert.deepEqual([error['type'], error['code']], ['InternalServerError', 500]);
    });
  });
});

describe('fault: hang', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('reads the request, never sends headers, and counts the client giving up as an abort', async () => {
    await withEngine({ dialect: 'ollama' }, async (engine) => {
      await setFaultOverHttp(engine.url, { mode: 'hang' });
      const ac = new AbortController();
      const call = fetch(`${engine.url}/api/chat`, { method: 'POST', body: JSON.stringify(ollamaChat()), signal: ac.signal });
      await waitFor(() => engine.state().hanging === 1, 'the request to hang');
      ac.abort();
      await assert.rejects(call, { name: 'AbortError' });
      await waitFor(() => engine.state().aborted === 1, 'the abort to be counted');
      assert.equal(engine.state().hanging, 0);
    });
  });
});

describe('fault: unused', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('streams <unusedN> placeholders with normal framing and a final frame', async () => {
    await withEngine({ dialect: 'ollama' }, async (engine) => {
      await engine.setFault({ mode: 'unused' });
      const frames = parseNdjson((await postJson(`${engine.url}/api/chat`, ollamaChat())).text);
      const content = frames.slice(0, -1).map((f) => (f['message'] as { content: string }).content);
      assert.ok(content.length > 0 && content.every((c) => c === UNUSED_TOKEN));
      assert.equal(frames.at(-1)?.['done'], true);
    });
  });

  it('fills OpenAI answers with placeholders too', async () => {
    await withEngine({ dialect: 'llamacpp' }, async (engine) => {
      await engine.setFault({ mode: 'unused' });
      const body = JSON.parse((await postJson(`${engine.url}/v1/chat/completions`, openaiChat())).text) as { choices: Array<{ message: { content: string } }> };
      assert.match(body.choices[0]?.message.content ?? '', /^(<unused\d+>)+$/);
    });
  });
});

describe('fault: cut', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('ends an Ollama stream after some content without the done:true frame', async () => {
    await withEngine({ dialect: 'ollama' }, async (engine) => {
      await engine.setFault({ mode: 'cut' });
      const reply = await rawPost(`${engine.url}/api/chat`, ollamaChat());
      assert.ok(!('error' in reply));
      const frames = parseNdjson(reply.text);
      assert.ok(frames.length > 0);
      assert.ok(frames.every((f) => f['done'] === false));
    });
  });

  it('answers a non-streamed Ollama request with done:false', async () => {
    await withEngine({ dialect: 'ollama' }, async (engine) => {
      await engine.setFault({ mode: 'cut' });
      const body = JSON.parse((await postJson(`${engine.url}/api/chat`, ollamaChat({ stream: false }))).text) as Record<string, unknown>;
      assert.equal(body['done'], false);
      assert.equal('done_reason' in body, false);
    });
  });

  it('drops an OpenAI stream mid-body with no finish chunk and no [DONE]', async () => {
    await withEngine({ dialect: 'vllm' }, async (engine) => {
      await engine.setFault({ mode: 'cut' });
      const reply = await rawPost(`${engine.url}/v1/chat/completions`, openaiChat({ stream: true }));
      assert.ok(!('error' in reply));
      assert.equal(reply.ended, 'reset');
      assert.ok(reply.text.startsWith('data: '));
      assert.ok(!reply.text.includes(DONE));
      assert.ok(!reply.text.includes('"finish_reason":"stop"'));
      assert.equal(engine.state().aborted, 0, 'a cut the engine makes is not a client abort');
    });
  });

  it('answers a non-streamed OpenAI request with a null finish_reason', async () => {
    await withEngine({ dialect: 'llamacpp' }, async (engine) => {
      await engine.setFault({ mode: 'cut' });
      const body = JSON.parse((await postJson(`${engine.url}/v1/chat/completions`, openaiChat())).text) as { choices: Array<{ finish_reason: unknown }> };
      assert.equal(body.choices[0]?.finish_reason, null);
    });
  });
});

describe('fault: slow-first-byte', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('holds the headers back by the scaled delay, and only for the request it takes', async () => {
    await withEngine({ dialect: 'vllm', timeScale: 0.01 }, async (engine) => {
      const url = `${engine.url}/v1/chat/completions`;
      await engine.setFault({ mode: 'slow-first-byte', delayMs: 8000, count: 1 });
      const start = performance.now();
      await postJson(url, openaiChat({ max_tokens: 1 }));
      const slow = performance.now() - start;
      // The scaled delay (80 ms) is a lower bound; timers may fire a fraction of a millisecond early.
      assert.ok(slow >= 8000 * 0.01 * 0.9, `slow request took ${slow} ms`);

      // Only the request it takes: one sent while a held request waits out its hour is answered
      // first. Timing an unfaulted request against the 80 ms instead failed 2 runs in 40 on a
      // loaded machine, where a fresh connection's first request took up to 208 ms.
      await engine.setFault({ mode: 'slow-first-byte', delayMs: 3_600_000, count: 1 });
      const abort = new AbortController();
      let heldAnswered = false;
      const held = fetch(url, { method: 'POST', body: JSON.stringify(openaiChat({ max_tokens: 1 })), signal: abort.signal }).then(
        () => (heldAnswered = true),
        () => undefined,
      );
      await waitFor(() => engine.state().faults.length === 0, 'the held request to take the fault');
      assert.equal((await postJson(url, openaiChat({ max_tokens: 1 }))).status, 200);
      assert.equal(heldAnswered, false, 'the held request has no headers yet');
      abort.abort();
      await held;
    });
  });
});

describe('fault: refuse', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('refuses connections until cleared through the control port, then serves at the same URL', async () => {
    await withEngine({ dialect: 'ollama', controlPort: 0 }, async (engine) => {
      assert.ok(engine.controlUrl !== undefined);
      await setFaultOverHttp(engine.url, { mode: 'refuse' });
      await waitFor(() => engine.state().refusing, 'the port to close');
      const refused = await rawPost(`${engine.url}/api/chat`, ollamaChat({ stream: false }));
      assert.deepEqual(refused, { error: 'ECONNREFUSED' });
      const state = (await (await fetch(`${engine.controlUrl}/__sim/state`)).json()) as { refusing: boolean; faults: Array<{ mode: string }> };
      assert.deepEqual([state.refusing, state.faults.map((f) => f.mode)], [true, ['refuse']]);
      const cleared = await fetch(`${engine.controlUrl}/__sim/faults`, { method: 'DELETE' });
      assert.equal(cleared.status, 200);
      const served = await rawPost(`${engine.url}/api/chat`, ollamaChat({ stream: false }));
      assert.ok(!('error' in served) && served.status === 200);
    });
  });

  it('reopens by itself after delayMs, and on restore() in process', async () => {
    await withEngine({ dialect: 'llamacpp', timeScale: 0.01 }, async (engine) => {
      await engine.setFault({ mode: 'refuse', delayMs: 2000 });
      assert.deepEqual(await rawPost(`${engine.url}/v1/chat/completions`, openaiChat()), { error: 'ECONNREFUSED' });
      await waitFor(() => !engine.state().refusing, 'the refusal to lapse');
      assert.equal((await postJson(`${engine.url}/v1/chat/completions`, openaiChat())).status, 200);
      await engine.setFault({ mode: 'refuse' });
      assert.deepEqual(await rawPost(`${engine.url}/v1/chat/completions`, openaiChat()), { error: 'ECONNREFUSED' });
      await engine.restore();
      assert.equal((await postJson(`${engine.url}/v1/chat/completions`, openaiChat())).status, 200);
    });
  });
});

describe('control routes', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('rejects an unknown fault mode and clears faults with DELETE', async () => {
    await withEngine({ dialect: 'vllm', faults: [{ mode: 'unused' }] }, async (engine) => {
      assert.deepEqual(
        engine.state().faults.map((f) => f.mode),
        ['unused'],
      );
      assert.equal((await postJson(`${engine.url}/__sim/faults`, { mode: 'explode' })).status, 400);
      assert.equal((await fetch(`${engine.url}/__sim/faults`, { method: 'DELETE' })).status, 200);
      assert.deepEqual(engine.state().faults, []);
    });
  });

  it('counts requests and resets counters and caches', async () => {
    await withEngine({ dialect: 'llamacpp' }, async (engine) => {
      await postJson(`${engine.url}/v1/chat/completions`, openaiChat());
      await postJson(`${engine.url}/v1/chat/completions`, openaiChat({ model: 'nope' }));
      const state = (await (await fetch(`${engine.url}/__sim/state`)).json()) as {
        requests: number;
        perModel: Record<string, { requests: number; slotCachedTokens: number[] }>;
      };
      assert.equal(state.requests, 2);
      assert.equal(state.perModel['m1']?.requests, 1);
      assert.ok((state.perModel['m1']?.slotCachedTokens[0] ?? 0) > 0);
      assert.equal((await postJson(`${engine.url}/__sim/reset`, {})).status, 200);
      assert.equal(engine.state().requests, 0);
      assert.deepEqual(engine.state().perModel['m1']?.slotCachedTokens, [0]);
    });
  });

  it('does not listen again when faults are cleared after close', async () => {
    const engine = await startSimEngine({ dialect: 'vllm', models: ['m1'], timeScale: 0.001 });
    await engine.setFault({ mode: 'refuse' });
    await engine.close();
    await engine.clearFaults();
    assert.deepEqual(await rawPost(`${engine.url}/v1/chat/completions`, openaiChat()), { error: 'ECONNREFUSED' });
  });
});
