import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { appDialectOf } from './route-table.js';

describe('appDialectOf', () => {
  it('gives OpenAI under the prefix /v1/ and Ollama under its /api/, query string or not', () => {
    assert.equal(appDialectOf('/api/inference/pool/v1/chat/completions'), 'openai');
    assert.equal(appDialectOf('/api/inference/pool/v1/models/Qwen%2FQwen3-4B?x=1'), 'openai');
    assert.equal(appDialectOf('/api/inference/pool/api/chat'), 'ollama');
    assert.equal(appDialectOf('/api/inference/pool/api/tags?verbose=1'), 'ollama');
  });

  it("gives Ollama at the prefix itself, where Ollama's CLI sends its heartbeat", () => {
    for (const url of ['/api/inference/pool', '/api/inference/pool/', '/api/inference/pool?x=1']) assert.equal(appDialectOf(url), 'ollama', url);
  });

  it('gives none to the operator and peer routes that share the prefix, nor to other paths', () => {
    for (const url of [
      '/api/inference/pool/status',
      '/api/inference/pool/local/api/chat',
      '/api/inference/pool/v2/chat',
      '/api/inference/poolx',
      '/api/hub/api-keys',
      '/',
    ]) {
      assert.equal(appDialectOf(url), null, url);
    }
  });
});
