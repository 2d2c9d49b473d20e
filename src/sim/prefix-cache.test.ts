import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachedTokens, commonPrefixChars, PrefixCache } from './prefix-cache.js';

describe('prefix cache', () => {
  it('measures the shared prefix in characters', () => {
    assert.equal(commonPrefixChars('abcdef', 'abcxyz'), 3);
    assert.equal(commonPrefixChars('', 'abc'), 0);
  });

  it('counts only whole shared tokens', () => {
    assert.equal(cachedTokens('aaaabbbbcc', 'aaaabbbXYZ'), 1);
  });

  it('re-reads the last token of an identical prompt, like llama.cpp', () => {
    const prompt = 'x'.repeat(40);
    assert.equal(cachedTokens(prompt, prompt), 9);
  });

  it('keeps only the still-valid part after an interrupted request', () => {
    const cache = new PrefixCache();
    cache.remember('aaaabbbbcccc');
    cache.truncateToSharedWith('aaaabbbbzzzz');
    assert.equal(cache.text, 'aaaabbbb');
    assert.equal(cache.tokens, 2);
  });
});
