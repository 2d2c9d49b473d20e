import assert from 'node:assert/strict';
import { scaled } from '../../test/helpers/time-scale.js';
import { after, before, describe, it } from 'node:test';
import { startSimEngine, type SimEngine } from './engine.js';
import { assertSameShape, collapsedShapes, DONE, fixtureJson, fixtureText, getReply, parseNdjson, parseSse, postJson } from './test-helpers.js';

/** A wedged exchange fails the suite instead of stalling a shared test run. */
const HTTP_SUITE_TIMEOUT_MS = scaled(60_000); // stretched by HUB_TEST_TIME_SCALE on a loaded machine

const METRIC_KEYS = ['total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration'];
const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'llama3.2', messages: [{ role: 'user', content }], ...extra });

describe('Ollama native API fidelity', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  let engine: SimEngine;
  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: ['llama3.2', 'nomic-embed-text'], timeScale: 0.001 });
  });
  after(async () => engine.close());

  it('streams chat by default as NDJSON frames shaped like the recorded stream', async () => {
    const reply = await postJson(`${engine.url}/api/chat`, chat('Why is the sky blue?'));
    assert.equal(reply.status, 200);
    assert.equal(reply.contentType, 'application/x-ndjson');
    const frames = parseNdjson(reply.text);
    const recorded = parseNdjson(fixtureText('ollama-chat-stream.ndjson'));
    assert.deepEqual(collapsedShapes(frames), collapsedShapes(recorded));
  });

  it('leaves metrics and done_reason out of intermediate frames', async () => {
    const frames = parseNdjson((await postJson(`${engine.url}/api/chat`, chat('omitempty'))).text);
    const intermediate = frames.slice(0, -1);
    assert.ok(intermediate.length > 0);
    for (const f of intermediate) {
      assert.equal(f['done'], false);
      for (const key of [...METRIC_KEYS, 'done_reason']) assert.equal(key in f, false, `${key} must be absent`);
    }
    const final = frames.at(-1);
    assert.equal(final?.['done'], true);
    assert.deepEqual(final?.['message'], { role: 'assistant', content: '' });
  });

  it('reports every duration as integer nanoseconds and created_at as RFC 3339 with nanoseconds', async () => {
    const frames = parseNdjson((await postJson(`${engine.url}/api/chat`, chat('units'))).text);
    const final = frames.at(-1) ?? {};
    for (const key of ['total_duration', 'load_duration', 'prompt_eval_duration', 'eval_duration']) {
      assert.ok(Number.isInteger(final[key]), `${key} must be an integer`);
    }
    for (const f of frames) assert.match(String(f['created_at']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
  });

  it('answers stream:false with the final frame carrying the whole answer', async () => {
    const streamed = parseNdjson((await postJson(`${engine.url}/api/chat`, chat('same prompt'))).text);
    const reply = await postJson(`${engine.url}/api/chat`, chat('same prompt', { stream: false }));
    assert.match(reply.contentType, /^application\/json/);
    const body = JSON.parse(reply.text) as Record<string, unknown>;
    assertSameShape(body, fixtureJson('ollama-chat-nonstreamed.json'), 'non-streamed chat');
    const text = streamed.map((f) => (f['message'] as { content: string }).content).join('');
    assert.deepEqual(body['message'], { role: 'assistant', content: text });
  });

  it('streams generate with response pieces and a final frame that carries context', async () => {
    const frames = parseNdjson((await postJson(`${engine.url}/api/generate`, { model: 'llama3.2', prompt: 'Colour?', options: { num_predict: 1 } })).text);
    assert.deepEqual(collapsedShapes(frames), collapsedShapes(parseNdjson(fixtureText('ollama-generate-stream.ndjson'))));
    assert.equal(frames.at(-1)?.['done_reason'], 'length');
  });

  it('answers load and unload calls without metrics', async () => {
    const load = JSON.parse((await postJson(`${engine.url}/api/chat`, { model: 'llama3.2', messages: [] })).text) as unknown;
    assertSameShape(load, fixtureJson('ollama-load-reply.json'), 'load reply');
    const unload = JSON.parse((await postJson(`${engine.url}/api/generate`, { model: 'llama3.2', keep_alive: 0 })).text) as Record<string, unknown>;
    assert.equal(unload['done_reason'], 'unload');
    assert.equal(unload['response'], '');
    const ps = JSON.parse((await getReply(`${engine.url}/api/ps`)).text) as { models: unknown[] };
    assert.deepEqual(ps.models, []);
  });

  it('lists models in /api/tags like the recorded entry, with embedding capability for embedding models', async () => {
    const tags = JSON.parse((await getReply(`${engine.url}/api/tags`)).text) as { models: Array<Record<string, unknown>> };
    const recorded = fixtureJson('ollama-tags.json') as { models: unknown[] };
    for (const m of tags.models) assertSameShape(m, recorded.models[0], 'tags entry');
    assert.deepEqual(
      tags.models.map((m) => m['name']),
      ['llama3.2:latest', 'nomic-embed-text:latest'],
    );
    assert.deepEqual(
      tags.models.map((m) => m['capabilities']),
      [['completion', 'tools'], ['embedding']],
    );
  });

  it('shows a loaded model in /api/ps at the window it was loaded with', async () => {
    await postJson(`${engine.url}/api/generate`, { model: 'llama3.2', prompt: 'x', stream: false, options: { num_ctx: 8192 } });
    const ps = JSON.parse((await getReply(`${engine.url}/api/ps`)).text) as { models: Array<Record<string, unknown>> };
    assert.equal(ps.models.length, 1);
    assertSameShape(ps.models[0], (fixtureJson('ollama-ps.json') as { models: unknown[] }).models[0], 'ps entry');
    assert.equal(ps.models[0]?.['context_length'], 8192);
  });

  it('describes a model in /api/show with its trained context under the architecture key', async () => {
    const show = JSON.parse((await postJson(`${engine.url}/api/show`, { model: 'llama3.2' })).text) as Record<string, unknown>;
    const recorded = fixtureJson('ollama-show.json') as Record<string, unknown>;
    assert.deepEqual(Object.keys(show).sort(), Object.keys(recorded).sort());
    assertSameShape(show['details'], recorded['details'], 'show details');
    const info = show['model_info'] as Record<string, unknown>;
    assert.equal(typeof info[`${String(info['general.architecture'])}.context_length`], 'number');
    assert.deepEqual(JSON.parse((await postJson(`${engine.url}/api/show`, {})).text), { error: 'model is required' });
  });

  it('answers errors with the recorded statuses and {"error": "..."} bodies', async () => {
    const missing = await fetch(`${engine.url}/api/chat`, { method: 'POST' });
    assert.equal(missing.status, 400);
    assert.deepEqual(await missing.json(), { error: 'missing request body' });
    const noModel = await postJson(`${engine.url}/api/chat`, { messages: [] });
    assert.equal(noModel.status, 400);
    assert.deepEqual(JSON.parse(noModel.text), { error: 'model is required' });
    const unknown = await postJson(`${engine.url}/api/chat`, { model: 'mistral:7b', messages: [] });
    assert.equal(unknown.status, 404);
    assert.deepEqual(JSON.parse(unknown.text), fixtureJson('ollama-error-not-found.json'));
    const embedChat = await postJson(`${engine.url}/api/chat`, { model: 'nomic-embed-text', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(embedChat.status, 400);
  });

  it('answers the liveness routes', async () => {
    const root = await getReply(`${engine.url}/`);
    assert.equal(root.text, 'Ollama is running');
    const head = await fetch(`${engine.url}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const version = JSON.parse((await getReply(`${engine.url}/api/version`)).text) as Record<string, unknown>;
    assert.equal(typeof version['version'], 'string');
  });

  it('embeds through /api/embed and the legacy /api/embeddings', async () => {
    const embed = JSON.parse((await postJson(`${engine.url}/api/embed`, { model: 'nomic-embed-text', input: ['a', 'b'] })).text) as Record<string, unknown>;
    assertSameShape(embed, fixtureJson('ollama-embed.json'), 'embed');
    assert.equal((embed['embeddings'] as unknown[]).length, 2);
    const legacy = JSON.parse((await postJson(`${engine.url}/api/embeddings`, { model: 'nomic-embed-text', prompt: 'a' })).text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(legacy), ['embedding']);
    const bad = await postJson(`${engine.url}/api/embed`, { model: 'nomic-embed-text', input: 3 });
    assert.deepEqual([bad.status, JSON.parse(bad.text)], [400, { error: 'invalid input type' }]);
  });
});

describe('Ollama reporting its prompt cache (newer builds)', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('adds prompt_eval_cached_count to the final frame and cached_tokens on /v1', async () => {
    const engine = await startSimEngine({ dialect: 'ollama', models: ['llama3.2'], timeScale: 0.001, reportCachedCount: true });
    try {
      const prompt = chat('a long enough prompt to cache '.repeat(20), { stream: false });
      await postJson(`${engine.url}/api/chat`, prompt);
      const second = JSON.parse((await postJson(`${engine.url}/api/chat`, prompt)).text) as Record<string, unknown>;
      assertSameShape(second, fixtureJson('ollama-chat-final-cached.json'), 'cached final frame');
      assert.equal(second['prompt_eval_cached_count'], Number(second['prompt_eval_count']) - 1);
      const v1 = { model: 'llama3.2', messages: [{ role: 'user', content: 'v1 prompt' }] };
      await postJson(`${engine.url}/v1/chat/completions`, v1);
      const body = JSON.parse((await postJson(`${engine.url}/v1/chat/completions`, v1)).text) as { usage: Record<string, unknown> };
      assert.ok(body.usage['prompt_tokens_details'] !== undefined);
    } finally {
      await engine.close();
    }
  });
});

describe("Ollama's OpenAI-compatible layer", { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  let engine: SimEngine;
  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: ['llama3.2', 'nomic-embed-text'], timeScale: 0.001 });
  });
  after(async () => engine.close());

  it('streams chat chunks with a separate finish chunk, a usage chunk and [DONE]', async () => {
    const body = chat('hi', { stream: true, stream_options: { include_usage: true } });
    const reply = await postJson(`${engine.url}/v1/chat/completions`, body);
    assert.equal(reply.contentType, 'text/event-stream');
    const events = parseSse(reply.text);
    assert.deepEqual(collapsedShapes(events), collapsedShapes(parseSse(fixtureText('ollama-v1-chat-stream.sse'))));
    assert.equal(events.at(-1), DONE);
    const chunks = events.filter((e): e is Record<string, unknown> => e !== DONE);
    assert.ok(chunks.every((c) => /^chatcmpl-\d{1,3}$/.test(String(c['id'])) && c['system_fingerprint'] === 'fp_ollama'));
  });

  it('sends no usage chunk unless include_usage is asked for', async () => {
    const events = parseSse((await postJson(`${engine.url}/v1/chat/completions`, chat('hi', { stream: true }))).text);
    assert.ok(events.every((e) => e === DONE || !('usage' in e)));
  });

  it('does not stream unless asked, and reports usage without prompt_tokens_details', async () => {
    const reply = await postJson(`${engine.url}/v1/chat/completions`, chat('hi'));
    assert.match(reply.contentType, /^application\/json/);
    const body = JSON.parse(reply.text) as unknown;
    assertSameShape(body, fixtureJson('ollama-v1-chat-nonstreamed.json'), 'non-streamed /v1 chat');
  });

  it('answers unknown models and empty messages with OpenAI-style errors', async () => {
    const unknown = await postJson(`${engine.url}/v1/chat/completions`, { model: 'mistral:7b', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(unknown.status, 404);
    assert.deepEqual(JSON.parse(unknown.text), fixtureJson('ollama-v1-error-not-found.json'));
    const empty = await postJson(`${engine.url}/v1/chat/completions`, { model: 'llama3.2', messages: [] });
    assert.equal(empty.status, 400);
    assert.equal((JSON.parse(empty.text) as { error: { type: string } }).error.type, 'invalid_request_error');
  });

  it('lists models owned by "library"', async () => {
    const list = JSON.parse((await getReply(`${engine.url}/v1/models`)).text) as { data: unknown[] };
    assertSameShape(list, fixtureJson('models-ollama.json'), '/v1/models');
    assert.ok(list.data.every((m) => (m as { owned_by: string }).owned_by === 'library'));
    const one = await getReply(`${engine.url}/v1/models/llama3.2:latest`);
    assert.equal(one.status, 200);
  });

  it('runs /v1 requests at the engine default window, reloading a model loaded at another', async () => {
    await postJson(`${engine.url}/api/generate`, { model: 'llama3.2', prompt: 'x', stream: false, options: { num_ctx: 2048 } });
    assert.equal(engine.state().loadedNumCtx['llama3.2:latest'], 2048);
    await postJson(`${engine.url}/v1/chat/completions`, chat('x'));
    assert.equal(engine.state().loadedNumCtx['llama3.2:latest'], 4096);
  });

  it('attaches a zero usage to every completions chunk when usage is asked for', async () => {
    const body = { model: 'llama3.2', prompt: 'hi', stream: true, stream_options: { include_usage: true } };
    const events = parseSse((await postJson(`${engine.url}/v1/completions`, body)).text).filter((e) => e !== DONE);
    const last = events.at(-1) as { choices: unknown[]; usage: { total_tokens: number } };
    assert.deepEqual(last.choices, []);
    assert.ok(last.usage.total_tokens > 0);
    for (const e of events.slice(0, -1)) assert.deepEqual((e as { usage: unknown }).usage, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });
});
