/**
 * A real llama.cpp engine behind a real Hub process: what the Hub relays is byte for byte what
 * the engine sent, in both dialects, streamed and whole; the same greedy request answers the
 * same directly; and the engine's cached-prompt count rises on a repeated prompt and on a
 * follow-up turn.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startLlamaEngine, type LlamaEngine } from '../helpers/llama-engine.js';

const MODEL = 'cihub-tiny:latest';

async function send(url: string, body: unknown): Promise<{ status: number; bytes: Buffer }> {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.statusCode, bytes: Buffer.from(await res.body.arrayBuffer()) };
}

/** The JSON documents of a body: NDJSON lines, SSE data events, or one JSON object. */
function documents(bytes: Buffer): unknown[] {
  const text = bytes.toString('utf8');
  if (text.startsWith('data: ')) {
    return text
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice(6))
      .map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as unknown)));
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}

/** Keys that differ between two runs of one request: clocks, ids, and how much the cache held. */
const VOLATILE = new Set([
  'created_at',
  'created',
  'id',
  'total_duration',
  'load_duration',
  'prompt_eval_duration',
  'eval_duration',
  'prompt_eval_cached_count',
  'prompt_tokens_details',
]);

function stable(doc: unknown): unknown {
  if (Array.isArray(doc)) return doc.map(stable);
  if (doc === null || typeof doc !== 'object') return doc;
  return Object.fromEntries(
    Object.entries(doc)
      .filter(([k]) => !VOLATILE.has(k))
      .map(([k, v]) => [k, stable(v)]),
  );
}

interface Case {
  readonly name: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

const question = (q: string) => [{ role: 'user', content: q }];
const CASES: readonly Case[] = [
  {
    name: 'an Ollama chat, streamed',
    path: '/api/chat',
    body: { model: MODEL, messages: question('what does the pool do'), options: { temperature: 0, num_predict: 16 } },
  },
  {
    name: 'an Ollama chat, whole',
    path: '/api/chat',
    body: { model: MODEL, messages: question('what is a slot'), stream: false, options: { temperature: 0, num_predict: 16 } },
  },
  {
    name: 'an Ollama generate, streamed',
    path: '/api/generate',
    body: { model: MODEL, prompt: 'why is the cache warm', options: { temperature: 0, num_predict: 16 } },
  },
  {
    name: 'an OpenAI chat, streamed with usage',
    path: '/v1/chat/completions',
    body: {
      model: MODEL,
      messages: question('which node holds the model'),
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      max_tokens: 16,
    },
  },
  {
    name: 'an OpenAI chat, whole',
    path: '/v1/chat/completions',
    body: { model: MODEL, messages: question('how fast is prefill'), temperature: 0, max_tokens: 16 },
  },
  {
    name: 'an OpenAI completion, streamed',
    path: '/v1/completions',
    body: { model: MODEL, prompt: 'the queue', stream: true, temperature: 0, max_tokens: 16 },
  },
];

describe('a real llama.cpp engine behind the Hub', () => {
  let engine: LlamaEngine;
  let hub: HubProcess;

  before(async () => {
    engine = await startLlamaEngine({ size: 'tiny', slots: 2, ctx: 4096 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
  });

  for (const c of CASES) {
    it(`relays ${c.name} byte for byte, and answers it the same way directly`, async () => {
      const viaHub = await send(`${hub.pool}${c.path}`, c.body);
      assert.equal(viaHub.status, 200, viaHub.bytes.toString());
      const sent = engine
        .recorded()
        .filter((r) => r.path === c.path)
        .at(-1);
      assert.ok(sent !== undefined, 'the engine served it');
      assert.equal(sent.requestBody.toString(), JSON.stringify(c.body), 'the Hub forwarded the request as the app wrote it');
      assert.equal(sent.complete, true);
      assert.ok(viaHub.bytes.equals(sent.body), `relayed:\n${viaHub.bytes.toString()}\nsent:\n${sent.body.toString()}`);

      const direct = await send(`${engine.url}${c.path}`, c.body);
      assert.equal(direct.status, 200);
      assert.deepEqual(stable(documents(direct.bytes)), stable(documents(viaHub.bytes)), 'the same greedy answer, frame for frame');
      const streamed = c.path.startsWith('/api/') ? c.body['stream'] !== false : c.body['stream'] === true;
      assert.equal(documents(viaHub.bytes).length > 2, streamed, 'streamed answers come in frames');
    });
  }

  it('reports the cached prompt count rising on a repeated prompt, natively and on /v1', async () => {
    // About 2,700 tokens: reading them dwarfs the scheduling noise of a busy two-core machine.
    const long = 'each request is placed on a node that holds its model and streams back '.repeat(110);
    const native = { model: MODEL, messages: question(long), stream: false, options: { temperature: 0, num_predict: 4 } };
    const first = JSON.parse((await send(`${hub.pool}/api/chat`, native)).bytes.toString()) as Record<string, number>;
    const again = JSON.parse((await send(`${hub.pool}/api/chat`, native)).bytes.toString()) as Record<string, number>;
    assert.ok(first['prompt_eval_count']! > 2000, `${first['prompt_eval_count']} prompt tokens`);
    assert.equal(first['prompt_eval_cached_count'], undefined);
    assert.equal(again['prompt_eval_count'], first['prompt_eval_count']);
    assert.equal(again['prompt_eval_cached_count'], first['prompt_eval_count']! - 1);
    assert.ok(again['prompt_eval_duration']! * 3 < first['prompt_eval_duration']!, 'only the uncached part is read, and its time is what is reported');

    const openai = { model: MODEL, messages: question(`on /v1: ${long}`), temperature: 0, max_tokens: 4 };
    type Usage = { usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } } };
    const u1 = JSON.parse((await send(`${hub.pool}/v1/chat/completions`, openai)).bytes.toString()) as Usage;
    const u2 = JSON.parse((await send(`${hub.pool}/v1/chat/completions`, openai)).bytes.toString()) as Usage;
    assert.ok(u1.usage.prompt_tokens_details.cached_tokens < u1.usage.prompt_tokens / 2);
    assert.equal(u2.usage.prompt_tokens, u1.usage.prompt_tokens);
    assert.equal(u2.usage.prompt_tokens_details.cached_tokens, u1.usage.prompt_tokens - 1);
  });

  it('lands a follow-up turn on the slot holding its conversation, so the earlier turn is not read again', async () => {
    const turn1 = question('tell me about the routing log');
    const body1 = { model: MODEL, messages: turn1, stream: false, options: { temperature: 0, num_predict: 12 } };
    const r1 = JSON.parse((await send(`${hub.pool}/api/chat`, body1)).bytes.toString()) as { prompt_eval_count: number; message: { content: string } };
    const turn2 = [...turn1, { role: 'assistant', content: r1.message.content }, { role: 'user', content: 'and the peers' }];
    const r2 = JSON.parse((await send(`${hub.pool}/api/chat`, { ...body1, messages: turn2 })).bytes.toString()) as {
      prompt_eval_count: number;
      prompt_eval_cached_count: number;
    };
    assert.ok(r2.prompt_eval_cached_count >= r1.prompt_eval_count, `cached ${r2.prompt_eval_cached_count} of the first turn's ${r1.prompt_eval_count}`);
    assert.ok(r2.prompt_eval_cached_count < r2.prompt_eval_count);
  });
});
