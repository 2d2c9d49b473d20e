import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseLimitValue } from './node-limits.js';

describe('parseLimitValue: N or clear, refused before the Hub is asked otherwise', () => {
  const accepted: readonly [string, number | null][] = [
    ['16384', 16_384],
    [' 1024 ', 1024],
    ['clear', null],
    ['CLEAR', null],
  ];
  for (const [raw, value] of accepted) it(`reads ${JSON.stringify(raw)} as ${value}`, () => assert.equal(parseLimitValue(raw, 'the cap'), value));
  const refused = ['16k', '-1', '1.5', '', 'none', 'null'];
  for (const raw of refused) {
    it(`refuses ${JSON.stringify(raw)}, naming what it must be`, () =>
      assert.throws(() => parseLimitValue(raw, 'the context cap'), /the context cap must be a whole number of tokens, or clear/));
  }
});
