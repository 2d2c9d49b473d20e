import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isChatCandidate, parseParameterCount, resolveAuto, type ModelOffer } from './auto-alias.js';

/** A chat model as the pool offers it; by default tool-capable, 8B, on one node, not local. */
function offer(name: string, extra: Partial<ModelOffer> = {}): ModelOffer {
  return { name, parameterSize: '8B', capabilities: ['completion', 'tools'], nodes: 1, local: false, remote: false, ...extra };
}

const TOOLLESS = ['completion'];

interface Row {
  readonly name: string;
  readonly offers: readonly ModelOffer[];
  readonly preferred?: string | null;
  readonly picks: string | null;
}

describe('resolveAuto', () => {
  const rows: readonly Row[] = [
    {
      name: 'a known tool-capable model beats one whose capabilities are unknown, even a bigger one',
      offers: [offer('unknown:70b', { capabilities: null, parameterSize: '70B' }), offer('tools:8b')],
      picks: 'tools:8b',
    },
    {
      name: 'unknown capabilities beat a known tool-less model, even a bigger one',
      offers: [offer('toolless:70b', { capabilities: TOOLLESS, parameterSize: '70B' }), offer('unknown:8b', { capabilities: null })],
      picks: 'unknown:8b',
    },
    {
      name: 'a known tool-less model is still picked when it is the only chat model',
      offers: [offer('gemma3:1b', { capabilities: TOOLLESS, parameterSize: '1B' })],
      picks: 'gemma3:1b',
    },
    {
      name: '7B or more comes before anything smaller, whatever else the smaller one has',
      offers: [offer('small:3b', { parameterSize: '3.2B', nodes: 5, local: true }), offer('big:7b', { parameterSize: '7B' })],
      picks: 'big:7b',
    },
    {
      name: 'a model of unknown size counts as under 7B',
      offers: [offer('nosize', { parameterSize: null, nodes: 9, local: true }), offer('big:8b')],
      picks: 'big:8b',
    },
    {
      name: 'among models of 7B or more, the bigger one first',
      offers: [offer('qwen3:8b', { parameterSize: '8.2B', nodes: 4, local: true }), offer('qwen3-coder:30b', { parameterSize: '30.5B' })],
      picks: 'qwen3-coder:30b',
    },
    {
      name: 'among models under 7B, the bigger one first',
      offers: [offer('gemma3:1b', { parameterSize: '1B' }), offer('llama3.2:3b', { parameterSize: '3.2B' })],
      picks: 'llama3.2:3b',
    },
    {
      name: 'millions compare correctly with billions',
      offers: [offer('tiny', { parameterSize: '900M' }), offer('less-tiny', { parameterSize: '1.1B' })],
      picks: 'less-tiny',
    },
    {
      name: 'at the same size, the model more nodes serve',
      offers: [offer('a:8b', { nodes: 1, local: true }), offer('b:8b', { nodes: 3 })],
      picks: 'b:8b',
    },
    {
      name: 'at the same size and node count, the model this Hub serves',
      offers: [offer('a:8b', { nodes: 2 }), offer('b:8b', { nodes: 2, local: true })],
      picks: 'b:8b',
    },
    {
      name: 'a full tie is settled by name, so every Hub resolves the same way',
      offers: [offer('zeta:8b'), offer('alpha:8b')],
      picks: 'alpha:8b',
    },
    {
      name: 'an embedding model is never picked, even the only large one',
      offers: [
        offer('nomic-embed-text:v1.5', { capabilities: ['embedding'], parameterSize: '137M' }),
        offer('qwen3-embedding:8b', { capabilities: ['embedding'] }),
        offer('gemma3:1b', { parameterSize: '1B' }),
      ],
      picks: 'gemma3:1b',
    },
    {
      name: 'a rerank model is never picked',
      offers: [offer('bge-reranker:v2', { capabilities: ['rerank'], parameterSize: '70B' }), offer('gemma3:1b', { parameterSize: '1B' })],
      picks: 'gemma3:1b',
    },
    {
      name: 'an embedding model whose engine gives no capabilities is known by its name',
      offers: [
        offer('mxbai-embed-large', { capabilities: null, parameterSize: '70B' }),
        offer('bge-m3', { capabilities: null, parameterSize: '70B' }),
        offer('m', { capabilities: null, parameterSize: '1B' }),
      ],
      picks: 'm',
    },
    {
      name: 'a :cloud tag is never ranked, however good it looks',
      offers: [offer('gpt-oss:120b-cloud', { parameterSize: '120B', nodes: 9 }), offer('qwen3:cloud', { parameterSize: '480B' }), offer('qwen3:8b')],
      picks: 'qwen3:8b',
    },
    {
      name: 'a cloud model Ollama marks remote is never ranked, whatever its name (protocols.md, 2.7)',
      offers: [offer('my-assistant:latest', { parameterSize: '116.8B', remote: true }), offer('qwen3:8b')],
      picks: 'qwen3:8b',
    },
    {
      name: 'a model whose name (not tag) mentions cloud is an ordinary candidate',
      offers: [offer('cloudy-llm:70b', { parameterSize: '70B' }), offer('qwen3:8b')],
      picks: 'cloudy-llm:70b',
    },
    {
      name: 'the preferred model wins when the pool serves it, even a small tool-less one',
      offers: [offer('qwen3-coder:30b', { parameterSize: '30B' }), offer('gemma3:1b', { capabilities: TOOLLESS, parameterSize: '1B' })],
      preferred: 'gemma3:1b',
      picks: 'gemma3:1b',
    },
    {
      name: 'the preferred model may be a :cloud tag',
      offers: [offer('qwen3:8b'), offer('gpt-oss:120b-cloud', { parameterSize: '120B' })],
      preferred: 'gpt-oss:120b-cloud',
      picks: 'gpt-oss:120b-cloud',
    },
    {
      name: 'a preferred model nobody serves falls back to the ranking',
      offers: [offer('qwen3:8b'), offer('llama3.2:3b', { parameterSize: '3B' })],
      preferred: 'gone:70b',
      picks: 'qwen3:8b',
    },
    {
      name: 'the preferred model is matched exactly, case included',
      offers: [offer('Qwen3:8b', { parameterSize: '1B' }), offer('qwen3:32b', { parameterSize: '32B' })],
      preferred: 'qwen3:8b',
      picks: 'qwen3:32b',
    },
    { name: 'null when the pool holds no model at all', offers: [], picks: null },
    {
      name: 'null when the pool holds only embedding and cloud models',
      offers: [offer('nomic-embed-text', { capabilities: ['embedding'] }), offer('gpt-oss:20b-cloud')],
      picks: null,
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.equal(resolveAuto(row.offers, row.preferred ?? null), row.picks));
  }

  it('does not depend on the order offers arrive in', () => {
    const offers = [offer('a:8b', { nodes: 2 }), offer('b:30b', { parameterSize: '30B' }), offer('c', { capabilities: null, parameterSize: '70B' })];
    assert.equal(resolveAuto(offers), 'b:30b');
    assert.equal(resolveAuto([...offers].reverse()), 'b:30b');
  });
});

describe('isChatCandidate', () => {
  const cases: readonly { name: string; offer: ModelOffer; chat: boolean }[] = [
    { name: 'a tool-capable chat model', offer: offer('qwen3:8b'), chat: true },
    { name: 'a model with unknown capabilities and an ordinary name', offer: offer('mistral', { capabilities: null }), chat: true },
    { name: 'a model that says embedding', offer: offer('anything', { capabilities: ['embedding'] }), chat: false },
    { name: 'a model named like an embedder but known to chat', offer: offer('embedder-chat', { capabilities: ['completion'] }), chat: true },
    { name: 'a :cloud tag', offer: offer('deepseek-v3.1:671b-cloud'), chat: false },
  ];
  for (const c of cases) {
    it(`${c.chat ? 'accepts' : 'refuses'} ${c.name}`, () => assert.equal(isChatCandidate(c.offer), c.chat));
  }
});

describe('parseParameterCount', () => {
  const cases: readonly { text: string | null; count: number | null }[] = [
    { text: '8.2B', count: 8.2e9 },
    { text: '7b', count: 7e9 },
    { text: '567M', count: 567e6 },
    { text: '1.5T', count: 1.5e12 },
    { text: ' 30B ', count: 30e9 },
    { text: '', count: null },
    { text: 'big', count: null },
    { text: '8 billion', count: null },
    { text: null, count: null },
    // Claims a peer can make to capture auto (issue 9, defect 15): beyond belief, not finite, not a size.
    { text: '2T', count: 2e12 },
    { text: '2.1T', count: null },
    { text: '999999T', count: null },
    { text: `${'9'.repeat(400)}B`, count: null },
    { text: '1e9B', count: null },
    { text: '0B', count: null },
    { text: '-5B', count: null },
    { text: 'InfinityB', count: null },
    { text: '...B', count: null },
  ];
  for (const c of cases) {
    it(`reads ${JSON.stringify(c.text)} as ${c.count}`, () => {
      const got = parseParameterCount(c.text);
      if (c.count === null || got === null) assert.equal(got, c.count);
      else assert.ok(Math.abs(got - c.count) < 1, `${got} is not ${c.count}`);
    });
  }
});

describe('resolveAuto against claims a peer makes about its own models', () => {
  const offer = (name: string, parameterSize: string | null, capabilities: string[] | null, local: boolean): ModelOffer => ({
    name,
    parameterSize,
    capabilities,
    nodes: 1,
    local,
    remote: false,
  });
  const local = offer('qwen3:8b', '8.2B', ['completion', 'tools'], true);

  it('does not hand auto to a peer claiming an impossibly large tools model', () => {
    assert.equal(resolveAuto([local, offer('bait:latest', '999999T', ['completion', 'tools'], false)]), 'qwen3:8b');
  });

  it('never resolves to a model named auto', () => {
    assert.equal(resolveAuto([local, offer('auto', '70B', ['completion', 'tools'], false)]), 'qwen3:8b');
    assert.equal(resolveAuto([offer('auto', '70B', ['completion', 'tools'], false)]), null);
  });

  it('still lets a peer win with a plausible larger tools model, as the spec ranks it', () => {
    assert.equal(resolveAuto([local, offer('llama3.3:70b', '70.6B', ['completion', 'tools'], false)]), 'llama3.3:70b');
  });
});
