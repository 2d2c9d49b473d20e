import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startLlamaEngine, type LlamaEngine } from './engine.js';

interface Final {
  done: boolean;
  done_reason?: string;
  message?: { content: string };
  response?: string;
  prompt_eval_count?: number;
  prompt_eval_cached_count?: number;
  prompt_eval_duration?: number;
  eval_count?: number;
  eval_duration?: number;
  error?: string;
}

describe('llama engine', () => {
  let engine: LlamaEngine;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${engine.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };
  const chat = async (content: string, options: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const r = await post('/api/chat', { model: 'cihub-tiny:latest', messages: [{ role: 'user', content }], stream: false, options, ...extra });
    return JSON.parse(r.text) as Final;
  };

  before(async () => {
    engine = await startLlamaEngine({ size: 'tiny', slots: 1, ctx: 2048 });
  });
  after(() => engine.close());

  it('reads a repeated prompt from the slot cache: all but the last token cached, and the prompt read much faster', async () => {
    // Long enough (about 1,750 of the slot's 2,048 tokens) that reading it dwarfs scheduling noise on a busy machine.
    const long = 'the pool routes each request to a node that holds its model '.repeat(95);
    const first = await chat(long, { temperature: 0, num_predict: 4 });
    const again = await chat(long, { temperature: 0, num_predict: 4 });
    assert.ok((first.prompt_eval_count ?? 0) > 1500, `${first.prompt_eval_count} prompt tokens`);
    assert.equal(first.prompt_eval_cached_count, undefined, 'nothing cached the first time (omitted, as every zero metric is)');
    assert.equal(again.prompt_eval_count, first.prompt_eval_count, 'the count includes cached tokens');
    assert.equal(again.prompt_eval_cached_count, (first.prompt_eval_count ?? 0) - 1, 'the last token is read again');
    assert.ok((again.prompt_eval_duration ?? 0) * 3 < (first.prompt_eval_duration ?? 0), `${again.prompt_eval_duration} vs ${first.prompt_eval_duration}`);
    assert.equal(again.message?.content, first.message?.content, 'greedy answers do not depend on the cache');
  });

  it('answers greedily the same way twice, and a seeded sample the same way for the same seed', async () => {
    const a = await chat('name a colour', { temperature: 0, num_predict: 12 });
    const b = await chat('name a colour', { temperature: 0, num_predict: 12 });
    assert.equal(a.message?.content, b.message?.content);
    const s1 = await chat('name a colour', { temperature: 1, seed: 42, num_predict: 12 }, { ignore_eos: true });
    const s2 = await chat('name a colour', { temperature: 1, seed: 42, num_predict: 12 }, { ignore_eos: true });
    assert.equal(s1.message?.content, s2.message?.content);
    assert.equal(s1.eval_count, 12);
  });

  it('writes only whole text: no byte fragments, no control tokens', async () => {
    const r = await chat('write anything at all', { temperature: 1.5, seed: 7, num_predict: 200 }, { ignore_eos: true });
    const text = r.message?.content ?? '';
    assert.equal(r.eval_count, 200);
    assert.ok(!text.includes('\uFFFD') && !/<\|im_|<s>|<\/s>|<0x/.test(text), text);
    assert.match(text, /^[ -~]+$/);
  });

  it('refuses a prompt longer than a slot and stops at the end of the slot with done_reason length', async () => {
    const tooLong = await post('/api/chat', { model: 'cihub-tiny:latest', messages: [{ role: 'user', content: 'word '.repeat(2100) }], stream: false });
    assert.equal(tooLong.status, 400);
    assert.match(JSON.parse(tooLong.text).error, /exceeds the context length/);
    const fill = await chat('fill the slot', { temperature: 0, num_predict: 5000 }, { ignore_eos: true });
    assert.equal(fill.done_reason, 'length');
    assert.equal((fill.prompt_eval_count ?? 0) + (fill.eval_count ?? 0), engine.slotCtx, 'generation stops where the slot is full, without shifting');
  });

  it('stops at a stop string and leaves it out', async () => {
    const free = await chat('stop test', { temperature: 0, num_predict: 30 }, { ignore_eos: true });
    const words = (free.message?.content ?? '').trim().split(' ');
    const stopAt = ` ${words[2]}`;
    const cut = await chat('stop test', { temperature: 0, num_predict: 30, stop: [stopAt] }, { ignore_eos: true });
    assert.equal(cut.done_reason, 'stop');
    assert.equal(cut.message?.content, (free.message?.content ?? '').slice(0, (free.message?.content ?? '').indexOf(stopAt)));
  });

  it('stops generating when the client hangs up, and says so', async () => {
    const ac = new AbortController();
    const res = await fetch(`${engine.url}/api/generate`, {
      method: 'POST',
      body: JSON.stringify({ model: 'cihub-tiny:latest', prompt: 'go on forever', ignore_eos: true, options: { num_predict: 1900 } }),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    const record = await engine.waitForRequest((r) => r.outcome === 'aborted', 5_000);
    assert.ok(record.evalCount < 1900, `stopped after ${record.evalCount} tokens`);
    assert.equal(engine.active(), 0);
  });

  it('embeds with the model and lists itself on tags, ps, show, version and /v1/models', async () => {
    const e = JSON.parse((await post('/api/embed', { model: 'cihub-tiny', input: ['a', 'b'] })).text) as { embeddings: number[][]; prompt_eval_count: number };
    assert.equal(e.embeddings.length, 2);
    assert.equal(e.embeddings[0]!.length, 128);
    assert.ok(Math.abs(Math.hypot(...e.embeddings[0]!) - 1) < 1e-6);
    assert.notDeepEqual(e.embeddings[0], e.embeddings[1]);
    const tags = (await (await fetch(`${engine.url}/api/tags`)).json()) as { models: Array<{ name: string; size: number; digest: string }> };
    assert.equal(tags.models[0]?.name, 'cihub-tiny:latest');
    assert.match(tags.models[0]?.digest ?? '', /^[0-9a-f]{64}$/);
    const ps = (await (await fetch(`${engine.url}/api/ps`)).json()) as { models: Array<{ context_length: number; size_vram: number }> };
    assert.deepEqual([ps.models[0]?.context_length, ps.models[0]?.size_vram], [engine.slotCtx, 0]);
    const show = JSON.parse((await post('/api/show', { model: 'cihub-tiny:latest' })).text) as { model_info: Record<string, unknown> };
    assert.equal(show.model_info['llama.block_count'], 2);
    assert.deepEqual(show.model_info['tokenizer.ggml.tokens'], []);
    const models = (await (await fetch(`${engine.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    assert.equal(models.data[0]?.id, 'cihub-tiny:latest');
    assert.equal((await post('/api/chat', { model: 'other', messages: [] })).status, 404);
  });

  it('refuses what the model cannot do instead of answering without it', async () => {
    const think = await post('/api/chat', { model: 'cihub-tiny:latest', messages: [{ role: 'user', content: 'hi' }], think: true });
    assert.deepEqual([think.status, JSON.parse(think.text)], [400, { error: '"cihub-tiny:latest" does not support thinking' }]);
    const format = await post('/api/generate', { model: 'cihub-tiny:latest', prompt: 'hi', format: 'json' });
    assert.equal(format.status, 400);
    const tools = await post('/v1/chat/completions', {
      model: 'cihub-tiny:latest',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f' } }],
    });
    assert.equal(tools.status, 400);
    assert.equal(JSON.parse(tools.text).error.type, 'invalid_request_error');
    const load = JSON.parse((await post('/api/chat', { model: 'cihub-tiny:latest', messages: [] })).text) as { done: boolean; done_reason: string };
    assert.deepEqual([load.done, load.done_reason], [true, 'load']);
  });
});
