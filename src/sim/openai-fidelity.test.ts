import assert from 'node:assert/strict';
import { scaled } from '../../test/helpers/time-scale.js';
import { after, before, describe, it } from 'node:test';
import { startSimEngine, type SimEngine } from './engine.js';
import { assertSameShape, collapsedShapes, DONE, fixtureJson, fixtureText, getReply, parseSse, postJson } from './test-helpers.js';
import type { Dialect } from './types.js';

/** A wedged exchange fails the suite instead of stalling a shared test run. */
const HTTP_SUITE_TIMEOUT_MS = scaled(60_000); // stretched by HUB_TEST_TIME_SCALE on a loaded machine

const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'm1', messages: [{ role: 'user', content }], ...extra });
type Chunk = Record<string, unknown>;
const chunksOf = (events: ReturnType<typeof parseSse>): Chunk[] => events.filter((e): e is Chunk => e !== DONE);

async function withEngine(dialect: Dialect, run: (e: SimEngine) => Promise<void>, extra: { reportCachedTokens?: boolean } = {}): Promise<void> {
  const engine = await startSimEngine({ dialect, models: ['m1', 'bge-embed'], timeScale: 0.001, ...extra });
  try {
    await run(engine);
  } finally {
    await engine.close();
  }
}

describe('vLLM fidelity', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  let engine: SimEngine;
  before(async () => {
    engine = await startSimEngine({ dialect: 'vllm', models: ['m1', 'bge-embed'], timeScale: 0.001 });
  });
  after(async () => engine.close());

  it('streams a role chunk, content chunks with finish_reason on the last, a usage chunk and [DONE]', async () => {
    const reply = await postJson(`${engine.url}/v1/chat/completions`, chat('hi', { stream: true, stream_options: { include_usage: true } }));
    assert.match(reply.contentType, /^text\/event-stream/);
    const events = parseSse(reply.text);
    assert.deepEqual(collapsedShapes(events), collapsedShapes(parseSse(fixtureText('vllm-chat-stream.sse'))));
    const chunks = chunksOf(events);
    assert.deepEqual((chunks[0]?.['choices'] as Chunk[])[0]?.['delta'], { role: 'assistant', content: '' });
    const lastContent = chunks.at(-2)?.['choices'] as Chunk[];
    assert.equal(lastContent[0]?.['finish_reason'], 'stop');
    assert.ok('content' in (lastContent[0]?.['delta'] as Chunk), 'the finish reason rides on the last content chunk');
  });

  it('turns include_usage on whenever stream_options is present, and sends no usage without it', async () => {
    const withOptions = chunksOf(parseSse((await postJson(`${engine.url}/v1/chat/completions`, chat('hi', { stream: true, stream_options: {} }))).text));
    assert.ok('usage' in (withOptions.at(-1) ?? {}));
    const without = chunksOf(parseSse((await postJson(`${engine.url}/v1/chat/completions`, chat('hi', { stream: true }))).text));
    assert.ok(without.every((c) => !('usage' in c)));
  });

  it('answers non-streamed chat like the recorded body, with cached tokens on a repeated prompt', async () => {
    const body = chat('the same prompt, long enough to be cached in part');
    await postJson(`${engine.url}/v1/chat/completions`, body);
    const second = JSON.parse((await postJson(`${engine.url}/v1/chat/completions`, body)).text) as {
      usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
    };
    assertSameShape(second, fixtureJson('vllm-chat-nonstreamed.json'), 'non-streamed chat');
    assert.equal(second.usage.prompt_tokens_details.cached_tokens, second.usage.prompt_tokens - 1);
  });

  it('answers an unknown model with NotFoundError and the integer status as code', async () => {
    const reply = await postJson(`${engine.url}/v1/chat/completions`, chat('x', { model: 'mistral-7b' }));
    assert.equal(reply.status, 404);
    assert.deepEqual(JSON.parse(reply.text), fixtureJson('vllm-error-not-found.json'));
  });

  it('serves its first model when the request names none', async () => {
    const reply = await postJson(`${engine.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'x' }] });
    assert.equal(reply.status, 200);
    assert.equal((JSON.parse(reply.text) as { model: string }).model, 'm1');
  });

  it('lists models owned by "vllm" with max_model_len, and answers /health with an empty 200', async () => {
    assertSameShape(JSON.parse((await getReply(`${engine.url}/v1/models`)).text), fixtureJson('models-vllm.json'), '/v1/models');
    const health = await getReply(`${engine.url}/health`);
    assert.deepEqual([health.status, health.text], [200, '']);
  });

  it('streams text completions with finish_reason on the last text chunk', async () => {
    const chunks = chunksOf(parseSse((await postJson(`${engine.url}/v1/completions`, { model: 'm1', prompt: 'hi', stream: true })).text));
    assert.ok(chunks.every((c) => c['object'] === 'text_completion'));
    assert.equal((chunks.at(-1)?.['choices'] as Chunk[])[0]?.['finish_reason'], 'stop');
  });

  it('embeds with an id, created and usage', async () => {
    const body = JSON.parse((await postJson(`${engine.url}/v1/embeddings`, { model: 'bge-embed', input: ['a', 'b'] })).text) as Chunk;
    assert.match(String(body['id']), /^embd-/);
    assert.equal((body['data'] as unknown[]).length, 2);
  });
});

describe('vLLM without --enable-prompt-tokens-details', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('leaves prompt_tokens_details out', async () => {
    await withEngine(
      'vllm',
      async (engine) => {
        const body = JSON.parse((await postJson(`${engine.url}/v1/chat/completions`, chat('x'))).text) as { usage: Chunk };
        assert.equal('prompt_tokens_details' in body.usage, false);
      },
      { reportCachedTokens: false },
    );
  });
});

describe('llama.cpp fidelity', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  let engine: SimEngine;
  before(async () => {
    engine = await startSimEngine({ dialect: 'llamacpp', models: ['m1', 'bge-embed'], timeScale: 0.001, slots: 2 });
  });
  after(async () => engine.close());

  it('streams a separate finish chunk carrying timings, then [DONE]', async () => {
    const reply = await postJson(`${engine.url}/v1/chat/completions`, chat('hi', { stream: true }));
    const events = parseSse(reply.text);
    assert.deepEqual(collapsedShapes(events), collapsedShapes(parseSse(fixtureText('llamacpp-chat-stream.sse'))));
    const finish = chunksOf(events).at(-1) ?? {};
    assert.deepEqual((finish['choices'] as Chunk[])[0]?.['delta'], {});
    assert.ok('timings' in finish);
  });

  it('moves timings to the trailing usage chunk when usage is asked for', async () => {
    const chunks = chunksOf(
      parseSse((await postJson(`${engine.url}/v1/chat/completions`, chat('hi', { stream: true, stream_options: { include_usage: true } }))).text),
    );
    const [finish, usage] = chunks.slice(-2);
    assert.equal('timings' in (finish ?? {}), false);
    assert.ok(usage !== undefined && 'timings' in usage && 'usage' in usage);
  });

  it('reports cache_n and cached_tokens on a repeated prompt, with prompt_tokens counting the whole prompt', async () => {
    const body = chat('a prompt that the slot will keep in its cache');
    await postJson(`${engine.url}/v1/chat/completions`, body);
    const second = JSON.parse((await postJson(`${engine.url}/v1/chat/completions`, body)).text) as {
      usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
      timings: { cache_n: number; prompt_n: number };
    };
    assertSameShape(second, fixtureJson('llamacpp-chat-nonstreamed.json'), 'non-streamed chat');
    assert.equal(second.timings.cache_n, second.usage.prompt_tokens_details.cached_tokens);
    assert.equal(second.timings.cache_n + second.timings.prompt_n, second.usage.prompt_tokens);
    assert.equal(second.timings.prompt_n, 1);
  });

  it('answers errors as {"error": {code, message, type}}', async () => {
    const reply = await postJson(`${engine.url}/v1/chat/completions`, chat('x', { model: 'mistral-7b' }));
    assert.equal(reply.status, 404);
    assert.deepEqual(JSON.parse(reply.text), fixtureJson('llamacpp-error-not-found.json'));
  });

  it('lists models owned by "llamacpp" and answers /health, /props and /slots', async () => {
    assertSameShape(JSON.parse((await getReply(`${engine.url}/v1/models`)).text), fixtureJson('models-llamacpp.json'), '/v1/models');
    assert.deepEqual(JSON.parse((await getReply(`${engine.url}/health`)).text), { status: 'ok' });
    const props = JSON.parse((await getReply(`${engine.url}/props`)).text) as { total_slots: number };
    assert.equal(props.total_slots, 2);
    const slots = JSON.parse((await getReply(`${engine.url}/slots`)).text) as Array<{ is_processing: boolean }>;
    assert.deepEqual(
      slots.map((s) => s.is_processing),
      [false, false],
    );
  });
});

describe('Lemonade fidelity', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('serves every route under /api/v1 and /v1, with health listing loaded models and their ctx_size', async () => {
    await withEngine('lemonade', async (engine) => {
      const before = JSON.parse((await getReply(`${engine.url}/api/v1/health`)).text) as { all_models_loaded: unknown[]; model_loaded: unknown };
      assert.deepEqual([before.all_models_loaded, before.model_loaded], [[], null]);
      assert.equal((await postJson(`${engine.url}/api/v1/chat/completions`, chat('x'))).status, 200);
      assert.equal((await postJson(`${engine.url}/v1/chat/completions`, chat('x'))).status, 200);
      const health = JSON.parse((await getReply(`${engine.url}/api/v1/health`)).text) as unknown;
      assertSameShape(health, fixtureJson('lemonade-health.json'), 'health');
      assert.equal((health as { all_models_loaded: Array<{ recipe_options: { ctx_size: number } }> }).all_models_loaded[0]?.recipe_options.ctx_size, 4096);
      assert.deepEqual(JSON.parse((await getReply(`${engine.url}/live`)).text), { status: 'ok' });
      const models = JSON.parse((await getReply(`${engine.url}/api/v1/models`)).text) as unknown;
      assertSameShape(models, { object: 'list', data: [(fixtureJson('models-lemonade.json') as { data: unknown[] }).data[0]] }, '/api/v1/models');
    });
  });
});

describe('oMLX fidelity', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('lists models owned by "omlx" and streams OpenAI chunks ending in [DONE]', async () => {
    await withEngine('omlx', async (engine) => {
      assertSameShape(JSON.parse((await getReply(`${engine.url}/v1/models`)).text), fixtureJson('models-omlx.json'), '/v1/models');
      const events = parseSse((await postJson(`${engine.url}/v1/chat/completions`, chat('x', { stream: true }))).text);
      assert.equal(events.at(-1), DONE);
      assert.deepEqual(JSON.parse((await getReply(`${engine.url}/health`)).text), { status: 'ok' });
    });
  });
});

describe('every OpenAI-compatible dialect', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  for (const dialect of ['vllm', 'llamacpp', 'lemonade', 'omlx', 'ollama'] as const) {
    it(`${dialect}: does not stream unless asked and reports finish_reason "length" at max_tokens`, async () => {
      await withEngine(dialect, async (engine) => {
        const reply = await postJson(`${engine.url}/v1/chat/completions`, chat('x', { max_tokens: 2 }));
        assert.match(reply.contentType, /^application\/json/);
        const body = JSON.parse(reply.text) as { choices: Array<{ finish_reason: string }>; usage: { completion_tokens: number } };
        assert.equal(body.choices[0]?.finish_reason, 'length');
        assert.equal(body.usage.completion_tokens, 2);
      });
    });
  }
});
