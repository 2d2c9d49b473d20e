import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSettingValue } from './settings.js';

describe('the value `cihub pool set` sends for a word', () => {
  const table: readonly [string, unknown][] = [
    ['true', true],
    ['false', false],
    ['null', null],
    ['2', 2],
    ['-1', -1],
    ['0.5', 0.5],
    ['.5', 0.5],
    ['5.', 5],
    ['5e0', 5],
    ['1E3', 1000],
    [' 3 ', 3],
    ['0x10', '0x10'],
    ['0b11', '0b11'],
    ['Infinity', 'Infinity'],
    ['', ''],
    ['4x', '4x'],
    ['e5', 'e5'],
  ];
  for (const [word, value] of table) it(`sends ${JSON.stringify(word)} as ${JSON.stringify(value)}`, () => assert.equal(parseSettingValue(word), value));
});
