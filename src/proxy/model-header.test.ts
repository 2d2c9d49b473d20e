import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateHeaderValue } from 'node:http';
import { modelHeaderValue } from './model-header.js';

describe('the model name in X-Hub-Pool-Model', () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ['an Ollama tag', 'qwen3:8b', 'qwen3:8b'],
    ['a Hugging Face path', 'meta-llama/Llama-3.1-8B-Instruct', 'meta-llama/Llama-3.1-8B-Instruct'],
    ['a name with a space', 'my model', 'my model'],
    ['a CJK name', 'qwen-中文:7b', 'qwen-%E4%B8%AD%E6%96%87%3A7b'],
    ['a Latin-1 name', 'modèle', 'mod%C3%A8le'],
    ['a name with a line break', 'a\r\nx-evil: 1', 'a%0D%0Ax-evil%3A%201'],
  ];
  for (const [what, model, expected] of cases) {
    it(`sends ${what} as ${JSON.stringify(expected)}`, () => {
      const value = modelHeaderValue(model);
      assert.equal(value, expected);
      assert.doesNotThrow(() => validateHeaderValue('x-hub-pool-model', value));
    });
  }

  it('decodes back to the name the app asked for when it was encoded', () => {
    assert.equal(decodeURIComponent(modelHeaderValue('qwen-中文:7b')), 'qwen-中文:7b');
  });
});
