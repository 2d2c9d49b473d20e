import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { runAdapterContract } from './engine-adapter.case.js';
import { ENGINE_KINDS } from './engine-kind.js';
import { startFakeEngine, type FakeEngine, type FakeReply } from './fake-engine.testkit.js';
import { MAX_STATED_CONTEXT_TOKENS } from './engine-answers.js';
import { openAICompatibleAdapter, parseModelList } from './openai-compatible.js';

type OpenAIKind = Parameters<typeof openAICompatibleAdapter>[0];

/** A /v1/models body; owned_by left out when `owner` is undefined, as mlx_lm.server does. */
function modelList(owner: string | undefined, ...ids: string[]): FakeReply {
  return { json: { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1, ...(owner === undefined ? {} : { owned_by: owner }) })) } };
}

const BASES: Readonly<Record<OpenAIKind, string>> = { vllm: '/v1', lemonade: '/api/v1', omlx: '/v1', llamacpp: '/v1' };

for (const kind of ENGINE_KINDS) {
  if (kind === 'ollama') continue;
  runAdapterContract({ adapter: openAICompatibleAdapter(kind), probePath: `${BASES[kind]}/models`, healthy: (...ids) => modelList(kind, ...ids) });
}

describe('OpenAI-compatible adapters', () => {
  for (const kind of ['vllm', 'lemonade', 'omlx', 'llamacpp'] as const) {
    it(`${kind} does not speak the native Ollama dialect and relays no /api route`, () => {
      const adapter = openAICompatibleAdapter(kind);
      assert.equal(adapter.speaks('ollama'), false);
      assert.equal(adapter.upstreamPath('/api/chat'), null);
      assert.equal(adapter.upstreamPath('/api/tags'), null);
    });
  }

  it('relays Lemonade under /api/v1', () => {
    const lemonade = openAICompatibleAdapter('lemonade');
    assert.equal(lemonade.upstreamPath('/v1/chat/completions'), '/api/v1/chat/completions');
    assert.equal(lemonade.upstreamPath('/v1/models'), '/api/v1/models');
  });

  it('relays vLLM under /v1 as it is', () => {
    assert.equal(openAICompatibleAdapter('vllm').upstreamPath('/v1/embeddings'), '/v1/embeddings');
  });

  it('does not relay a /v1 route outside the pooled set', () => {
    assert.equal(openAICompatibleAdapter('vllm').upstreamPath('/v1/files'), null);
  });
});

describe('two engines on port 8000: reading owned_by', () => {
  let engine: FakeEngine;
  let reply: FakeReply;
  const dispatcher = new Agent();
  before(async () => {
    engine = await startFakeEngine(() => reply);
  });
  after(async () => {
    await engine.close();
    await dispatcher.destroy();
  });

  const rows: readonly { name: string; kind: OpenAIKind; reply: FakeReply; healthy: boolean; error?: RegExp }[] = [
    { name: 'vLLM naming itself vllm is healthy', kind: 'vllm', reply: modelList('vllm', 'Qwen/Qwen3-8B'), healthy: true },
    {
      name: 'the vLLM adapter finding an oMLX-named server is running but not healthy',
      kind: 'vllm',
      reply: modelList('omlx', 'm'),
      healthy: false,
      error: /names itself omlx, not vllm/,
    },
    {
      name: 'the oMLX adapter finding vLLM is running but not healthy',
      kind: 'omlx',
      reply: modelList('vllm', 'Qwen/Qwen3-8B'),
      healthy: false,
      error: /names itself vllm, not omlx/,
    },
    { name: 'a server naming itself ollama is not a vLLM', kind: 'vllm', reply: modelList('ollama', 'm'), healthy: false, error: /names itself ollama/ },
    {
      name: 'the vLLM adapter finding llama.cpp is running but not healthy',
      kind: 'vllm',
      reply: modelList('llamacpp', 'm'),
      healthy: false,
      error: /llamacpp/,
    },
    {
      name: 'a server that does not name itself (mlx_lm.server) is left alone',
      kind: 'omlx',
      reply: modelList(undefined, 'mlx-community/Qwen3-8B-4bit'),
      healthy: true,
    },
    { name: 'owned_by absent is left alone for vLLM too', kind: 'vllm', reply: modelList(undefined, 'm'), healthy: true },
    { name: "Ollama's library namespace names no engine", kind: 'vllm', reply: modelList('library', 'qwen3:8b'), healthy: true },
    { name: 'an organisation namespace names no engine', kind: 'llamacpp', reply: modelList('someone', 'm'), healthy: true },
    {
      name: 'one entry naming another engine among unnamed ones is enough',
      kind: 'vllm',
      reply: { json: { data: [{ id: 'a' }, { id: 'b', owned_by: 'lemonade' }] } },
      healthy: false,
      error: /lemonade/,
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      reply = row.reply;
      const answer = await openAICompatibleAdapter(row.kind).probe(engine.url, dispatcher, new AbortController().signal);
      assert.equal(answer.running, true);
      assert.equal(answer.healthy, row.healthy);
      if (row.healthy) {
        assert.equal(answer.error, null);
        assert.ok(answer.models.length > 0);
      } else {
        assert.match(answer.error ?? '', row.error ?? /./);
        assert.deepEqual(answer.models, [], 'a server that is another engine offers no models as this one');
      }
    });
  }

  it('reads the window a Lemonade states for each model from the same listing', async () => {
    reply = {
      json: {
        object: 'list',
        data: [
          { id: 'Qwen3-8B-GGUF', object: 'model', owned_by: 'lemonade', recipe: 'llamacpp', context_length: 8192 },
          { id: 'Gemma-3-1b-it-GGUF', object: 'model', owned_by: 'lemonade', recipe: 'llamacpp' },
        ],
      },
    };
    const answer = await openAICompatibleAdapter('lemonade').probe(engine.url, dispatcher, new AbortController().signal);
    assert.deepEqual(
      answer.models.map((m) => [m.name, m.contextLength]),
      [
        ['Qwen3-8B-GGUF', 8192],
        ['Gemma-3-1b-it-GGUF', null],
      ],
    );
  });

  it('asks Lemonade at /api/v1/models, not /v1/models', async () => {
    reply = modelList('lemonade', 'Qwen3-8B-GGUF');
    const asked = engine.paths.length;
    await openAICompatibleAdapter('lemonade').probe(engine.url, dispatcher, new AbortController().signal);
    assert.deepEqual(engine.paths.slice(asked), ['/api/v1/models']);
  });
});

describe('parseModelList', () => {
  it('reads ids and owners and skips entries without an id', () => {
    const parsed = parseModelList({ data: [{ id: 'a', owned_by: 'vllm' }, { id: '' }, { owned_by: 'x' }, { id: 'b' }] });
    assert.deepEqual(
      parsed?.models.map((m) => m.name),
      ['a', 'b'],
    );
    assert.deepEqual(parsed?.owners, ['vllm']);
  });

  it('reports nothing it was not told: no size, parameters, capabilities or window', () => {
    assert.deepEqual(parseModelList({ data: [{ id: 'a' }] })?.models, [
      { name: 'a', parameterSize: null, capabilities: null, sizeBytes: null, contextLength: null },
    ]);
  });

  it('reads the window Lemonade states (context_length), and a figure no model could have as not stated', () => {
    const windows = (context_length: unknown) => parseModelList({ data: [{ id: 'a', owned_by: 'lemonade', context_length }] })?.models[0]?.contextLength;
    assert.equal(windows(8192), 8192);
    for (const junk of [0, -1, 1.5, '8192', null, MAX_STATED_CONTEXT_TOKENS + 1, Infinity]) assert.equal(windows(junk), null, String(junk));
  });

  it('reads the window vLLM states (max_model_len) the same way', () => {
    const windows = (max_model_len: unknown) => parseModelList({ data: [{ id: 'a', owned_by: 'vllm', max_model_len }] })?.models[0]?.contextLength;
    assert.equal(windows(32768), 32768);
    for (const junk of [0, -1, 1.5, '8192', null, MAX_STATED_CONTEXT_TOKENS + 1]) assert.equal(windows(junk), null, String(junk));
  });

  it('is null for a body without a data list', () => {
    assert.equal(parseModelList({ models: [] }), null);
    assert.equal(parseModelList(null), null);
  });
});
