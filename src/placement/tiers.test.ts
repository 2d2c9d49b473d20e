import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Candidate, Tiers } from './types.js';
import { allCandidates, behindEveryone, distinctNodes, splitEachTier } from './tiers.js';

const c = (id: string, node = id): Candidate => ({
  id,
  node,
  backendId: null,
  engine: null,
  url: `http://${id}`,
  queueDepth: 0,
  loadReported: true,
  peerId: id,
  hardwareTier: null,
  pressure: 1,
});
const [a, b, d, e] = [c('a'), c('b'), c('d'), c('e')];
const ids = (tiers: Tiers) => tiers.map((tier) => tier.map((x) => x.id));
const flag =
  (...flagged: Candidate[]) =>
  (x: Candidate) =>
    flagged.includes(x);

describe('splitEachTier: the flagged move behind the others of their own tier', () => {
  const rows: readonly { name: string; tiers: Tiers; flagged: Candidate[]; expect: string[][]; moved: string[] }[] = [
    { name: 'nothing flagged: the tiers as they were', tiers: [[a, b], [d]], flagged: [], expect: [['a', 'b'], ['d']], moved: [] },
    { name: 'one flagged: it follows its tier as a tier of its own', tiers: [[a, b, d], [e]], flagged: [a], expect: [['b', 'd'], ['a'], ['e']], moved: ['a'] },
    {
      name: 'the flagged keep the order they arrived in',
      tiers: [[a, b, d, e]],
      flagged: [d, a],
      expect: [
        ['b', 'e'],
        ['a', 'd'],
      ],
      moved: ['a', 'd'],
    },
    {
      name: 'a tier with everything flagged is left whole (there is nothing in it to move behind)',
      tiers: [
        [a, b],
        [d, e],
      ],
      flagged: [a, b, d],
      expect: [['a', 'b'], ['e'], ['d']],
      moved: ['d'],
    },
    {
      name: 'each tier is split on its own',
      tiers: [
        [a, b],
        [d, e],
      ],
      flagged: [a, d],
      expect: [['b'], ['a'], ['e'], ['d']],
      moved: ['a', 'd'],
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      const out = splitEachTier(row.tiers, flag(...row.flagged));
      assert.deepEqual(ids(out.tiers), row.expect);
      assert.deepEqual(
        out.moved.map((x) => x.id),
        row.moved,
      );
    });
});

describe('behindEveryone: the flagged move into one tier behind every other candidate', () => {
  const rows: readonly { name: string; tiers: Tiers; flagged: Candidate[]; expect: string[][]; moved: string[] }[] = [
    { name: 'nothing flagged: the tiers as they were', tiers: [[a, b], [d]], flagged: [], expect: [['a', 'b'], ['d']], moved: [] },
    {
      name: 'flagged from several tiers gather last, in list order',
      tiers: [
        [a, b],
        [d, e],
      ],
      flagged: [d, a],
      expect: [['b'], ['e'], ['a', 'd']],
      moved: ['a', 'd'],
    },
    { name: 'a tier emptied by the move is dropped', tiers: [[a], [b, d]], flagged: [a], expect: [['b', 'd'], ['a']], moved: ['a'] },
    { name: 'everything flagged: one tier, in list order', tiers: [[a], [b, d]], flagged: [a, b, d], expect: [['a', 'b', 'd']], moved: ['a', 'b', 'd'] },
  ];
  for (const row of rows)
    it(row.name, () => {
      const out = behindEveryone(row.tiers, flag(...row.flagged));
      assert.deepEqual(ids(out.tiers), row.expect);
      assert.deepEqual(
        out.moved.map((x) => x.id),
        row.moved,
      );
    });
});

describe('distinctNodes', () => {
  it('names each node once, in the order its first candidate appears', () =>
    assert.deepEqual(distinctNodes([c('x/1', 'core-2'), c('local/a', 'local'), c('x/2', 'core-2')]), ['core-2', 'local']));
});

describe('allCandidates', () => {
  it('lists every candidate tier after tier, empty tiers included, in a new array', () => {
    const tiers: Tiers = [[a, b], [], [d], [e]];
    const all = allCandidates(tiers);
    assert.deepEqual(
      all.map((x) => x.id),
      ['a', 'b', 'd', 'e'],
    );
    assert.notEqual(all, tiers[0]);
    assert.deepEqual(allCandidates([]), []);
  });
});
