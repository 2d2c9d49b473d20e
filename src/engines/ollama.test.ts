import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runAdapterContract } from './engine-adapter.case.js';
import { ollamaTags } from './fake-engine.testkit.js';
import { ollamaAdapter, parseTags } from './ollama.js';

runAdapterContract({ adapter: ollamaAdapter, probePath: '/api/tags', healthy: (...models) => ollamaTags(...models) });

describe('ollamaAdapter', () => {
  it('speaks the native dialect too', () => assert.equal(ollamaAdapter.speaks('ollama'), true));

  for (const path of ['/api/chat', '/api/generate', '/api/embed', '/api/embeddings', '/api/show', '/api/ps', '/api/version', '/api/tags']) {
    it(`relays the native ${path} as it is`, () => assert.equal(ollamaAdapter.upstreamPath(path), path));
  }

  it('relays /v1 paths to its own OpenAI-compatible layer unchanged', () => {
    assert.equal(ollamaAdapter.upstreamPath('/v1/chat/completions'), '/v1/chat/completions');
  });

  it('does not relay a native path it does not know', () => assert.equal(ollamaAdapter.upstreamPath('/api/blobs/sha256:abc'), null));
});

describe('parseTags', () => {
  it('reads name, parameter size, capabilities and size', () => {
    const models = parseTags({
      models: [
        { name: 'qwen3:8b', model: 'qwen3:8b', size: 5_200_000_000, details: { parameter_size: '8.2B' }, capabilities: ['completion', 'tools'] },
        { model: 'nomic-embed-text:latest', details: {}, capabilities: ['embedding', 7] },
      ],
    });
    assert.deepEqual(models, [
      { name: 'qwen3:8b', parameterSize: '8.2B', capabilities: ['completion', 'tools'], sizeBytes: 5_200_000_000 },
      { name: 'nomic-embed-text:latest', parameterSize: null, capabilities: ['embedding'], sizeBytes: null },
    ]);
  });

  it('keeps what was not reported absent, never zero or empty', () => {
    assert.deepEqual(parseTags({ models: [{ name: 'm', size: 0, details: { parameter_size: '' } }] }), [
      { name: 'm', parameterSize: null, capabilities: null, sizeBytes: null },
    ]);
  });

  it('skips entries without a name', () => {
    assert.deepEqual(parseTags({ models: [{ name: '' }, { size: 3 }, 'qwen3:8b'] }), []);
  });

  it("is null for a body not in Ollama's shape", () => {
    assert.equal(parseTags({ data: [] }), null);
    assert.equal(parseTags(null), null);
    assert.equal(parseTags({ models: 'qwen3:8b' }), null);
  });
});
