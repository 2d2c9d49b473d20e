import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { holdsMoreStructureThan } from './bounded-read.js';

describe('holdsMoreStructureThan', () => {
  const table: Array<[string, string, number, boolean]> = [
    ['a scalar holds none', '42', 0, false],
    ['an object of two keys holds four: the brace, two colons, a comma', '{"a":1,"b":2}', 4, false],
    ['the same object is past a bound of three', '{"a":1,"b":2}', 3, true],
    ['nested arrays count each opening bracket', '[[[[]]]]', 3, true],
    ['separators inside strings count too', '["a,b:c"]', 2, true],
    ['closing brackets and whitespace do not count', ' ] } ', 0, false],
  ];
  for (const [name, json, max, expected] of table) {
    it(name, () => assert.equal(holdsMoreStructureThan(Buffer.from(json), max), expected));
  }

  it('finds a 12 MB object of a million keys past the capabilities bound', () => {
    const keys = Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":1`).join(',');
    assert.equal(holdsMoreStructureThan(Buffer.from(`{${keys}}`), 250_000), true);
  });
});
