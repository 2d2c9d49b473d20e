import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { probeOrder } from './probe-order.js';

const dev = (name: string, online: boolean | null) => ({ name, online });

describe('probeOrder', () => {
  it('puts devices known to be offline after the rest, each group keeping its name order; unknown counts as not offline', () => {
    const order = probeOrder([dev('a', false), dev('b', true), dev('c', null), dev('d', false), dev('e', true)], 10);
    assert.deepEqual(
      order.map((d) => d.name),
      ['b', 'c', 'e', 'a', 'd'],
    );
  });

  it('cuts at the cap after ordering, so offline devices are the ones left out', () => {
    const order = probeOrder([dev('a', false), dev('b', false), dev('c', true)], 2);
    assert.deepEqual(
      order.map((d) => d.name),
      ['c', 'a'],
    );
  });
});
