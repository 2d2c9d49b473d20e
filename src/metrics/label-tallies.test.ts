import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CounterTally, HistogramTally } from './label-tallies.js';

describe('CounterTally', () => {
  it('keeps one series per set of label values, in the order each set was first seen', () => {
    const tally = new CounterTally(['node', 'route'] as const);
    tally.inc({ node: 'b', route: '/x' });
    tally.inc({ node: 'a', route: '/x' });
    tally.inc({ node: 'b', route: '/x' });
    tally.inc({ node: 'b', route: '/y' });
    assert.deepEqual(
      [...tally.series()].map((s) => [s.labels.node, s.labels.route, s.value]),
      [
        ['b', '/x', 2],
        ['a', '/x', 1],
        ['b', '/y', 1],
      ],
    );
  });

  it('never merges two sets whose values would read alike joined into one string', () => {
    const tally = new CounterTally(['a', 'b'] as const);
    tally.inc({ a: 'x\u0000', b: 'y' });
    tally.inc({ a: 'x', b: '\u0000y' });
    tally.inc({ a: 'x,y', b: '' });
    tally.inc({ a: 'x', b: 'y,' });
    assert.equal([...tally.series()].length, 4);
  });

  it('counts a metric without labels in one series', () => {
    const tally = new CounterTally([] as const);
    tally.inc({});
    tally.inc({});
    assert.deepEqual(
      [...tally.series()].map((s) => s.value),
      [2],
    );
  });
});

describe('HistogramTally', () => {
  const bounds = [0.1, 1, 10];
  const rows: readonly { name: string; value: number; buckets: number[]; count: number }[] = [
    { name: 'a value on a bound falls in that bound', value: 1, buckets: [0, 1, 0], count: 1 },
    { name: 'a value between bounds falls in the next one up', value: 0.5, buckets: [0, 1, 0], count: 1 },
    { name: 'a value below the first bound falls in the first', value: 0, buckets: [1, 0, 0], count: 1 },
    { name: 'a value past the last bound counts only towards the total', value: 11, buckets: [0, 0, 0], count: 1 },
    { name: 'a value that is not a finite number is not counted at all', value: Number.NaN, buckets: [], count: 0 },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const tally = new HistogramTally(['node'] as const, bounds);
      tally.observe({ node: 'local' }, row.value);
      const series = [...tally.series()];
      assert.equal(series.length, row.count);
      if (row.count > 0) assert.deepEqual(series[0]!.bucketCounts, row.buckets);
    });
  }

  it('adds up the sum and count of each set of labels apart', () => {
    const tally = new HistogramTally(['node'] as const, bounds);
    tally.observe({ node: 'a' }, 0.5);
    tally.observe({ node: 'b' }, 2);
    tally.observe({ node: 'a' }, 3);
    assert.deepEqual(
      [...tally.series()].map((s) => [s.labels.node, s.sum, s.count, s.bucketCounts]),
      [
        ['a', 3.5, 2, [0, 1, 1]],
        ['b', 2, 1, [0, 0, 1]],
      ],
    );
  });
});
