import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from './heap-growth.js';

describe('limitHeapGrowth', () => {
  const flagsSetFor = (percent: number): string[] => {
    const set: string[] = [];
    limitHeapGrowth(percent, (flags) => set.push(flags));
    return set;
  };

  it("hands V8 the percentage it is given, the default's included", () => {
    assert.deepEqual(flagsSetFor(HEAP_GROWING_PERCENT), ['--heap-growing-percent=100']);
    assert.deepEqual(flagsSetFor(300), ['--heap-growing-percent=300']);
  });

  it('sets nothing for 0, so V8 keeps its own rule', () => {
    assert.deepEqual(flagsSetFor(0), []);
  });
});
