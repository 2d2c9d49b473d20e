import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens, embedText, EMBEDDING_DIMS, generateTokens, renderChatPrompt, UNUSED_TOKEN } from './tokens.js';

describe('simulated tokenizer', () => {
  it('counts one token per four characters, rounding up', () => {
    assert.equal(countTokens(''), 0);
    assert.equal(countTokens('abcd'), 1);
    assert.equal(countTokens('abcde'), 2);
  });

  it('renders a conversation so a follow-up turn extends the previous turn as a prefix', () => {
    const first = renderChatPrompt([{ role: 'user', content: 'hi' }]);
    const second = renderChatPrompt([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'more' },
    ]);
    assert.ok(second.startsWith(first + 'hello'));
  });

  it('reads the text parts of OpenAI content arrays', () => {
    const prompt = renderChatPrompt([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
    assert.ok(prompt.includes('ab'));
  });

  it('generates the same words for the same seed and only placeholders in unused mode', () => {
    assert.deepEqual(generateTokens(42, 5, false), generateTokens(42, 5, false));
    assert.notDeepEqual(generateTokens(42, 5, false), generateTokens(43, 5, false));
    assert.deepEqual(generateTokens(42, 3, true), [UNUSED_TOKEN, UNUSED_TOKEN, UNUSED_TOKEN]);
  });

  it('embeds equal text equally, as a unit vector', () => {
    const v = embedText('hello');
    assert.equal(v.length, EMBEDDING_DIMS);
    assert.deepEqual(v, embedText('hello'));
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-4);
  });
});
