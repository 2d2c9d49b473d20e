import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { limits, placementContext } from '../context.fixture.js';
import { localEngine, peerAt } from './candidate-fixtures.js';
import { place, STEPS } from '../pipeline.js';
import type { NodeLimits, PlacementContext, Tiers } from '../types.js';
import { promptCeilingStep } from './prompt-ceiling.js';

const L = localEngine('ollama');
const A = peerAt('hub-a');
const B = peerAt('hub-b');
const C = peerAt('hub-c');
const ids = (tiers: Tiers) => tiers.map((t) => t.map((c) => c.node));

/** Spec, "Prompt ceilings": every bullet of the rule as a row. */
const rows: readonly {
  name: string;
  tiers: Tiers;
  estimate: number;
  ceilings: Record<string, Partial<NodeLimits>>;
  judges?: boolean;
  after: string[][];
  excluded: { node: string; maxPromptTokens: number }[] | null;
}[] = [
  {
    name: 'no candidate has a ceiling: nothing moves and the record is null',
    tiers: [[A, B]],
    estimate: 10_000,
    ceilings: {},
    after: [['hub-a', 'hub-b']],
    excluded: null,
  },
  {
    name: 'a node whose ceiling is below the estimate goes behind the rest',
    tiers: [[A, B]],
    estimate: 10_000,
    ceilings: { 'hub-a': { maxPromptTokens: 1024 } },
    after: [['hub-b'], ['hub-a']],
    excluded: [{ node: 'hub-a', maxPromptTokens: 1024 }],
  },
  {
    name: "this node's own ceiling moves its own candidates",
    tiers: [[L, A]],
    estimate: 20_000,
    ceilings: { local: { maxPromptTokens: 16_000 } },
    after: [['hub-a'], ['local']],
    excluded: [{ node: 'local', maxPromptTokens: 16_000 }],
  },
  {
    name: 'a ceiling at the estimate is not over it',
    tiers: [[A, B]],
    estimate: 1024,
    ceilings: { 'hub-a': { maxPromptTokens: 1024 } },
    after: [['hub-a', 'hub-b']],
    excluded: [],
  },
  {
    name: 'a ceiling above the estimate keeps its place, and the record says a ceiling was there',
    tiers: [[A, B]],
    estimate: 500,
    ceilings: { 'hub-a': { maxPromptTokens: 1024 } },
    after: [['hub-a', 'hub-b']],
    excluded: [],
  },
  {
    name: 'both groups keep the ranker order',
    tiers: [[A, B, C, L]],
    estimate: 5000,
    ceilings: { 'hub-a': { maxPromptTokens: 2048 }, 'hub-c': { maxPromptTokens: 4096 } },
    after: [
      ['hub-b', 'local'],
      ['hub-a', 'hub-c'],
    ],
    excluded: [
      { node: 'hub-a', maxPromptTokens: 2048 },
      { node: 'hub-c', maxPromptTokens: 4096 },
    ],
  },
  {
    name: 'every candidate over its ceiling: nothing moves (a slow answer beats a 502)',
    tiers: [[A, B]],
    estimate: 50_000,
    ceilings: { 'hub-a': { maxPromptTokens: 1024 }, 'hub-b': { maxPromptTokens: 2048 } },
    after: [['hub-a', 'hub-b']],
    excluded: [],
  },
  {
    name: 'it splits inside each group an earlier step made, never across',
    tiers: [[A], [B, C]],
    estimate: 5000,
    ceilings: { 'hub-a': { maxPromptTokens: 1024 }, 'hub-b': { maxPromptTokens: 1024 } },
    after: [['hub-a'], ['hub-c'], ['hub-b']],
    excluded: [{ node: 'hub-b', maxPromptTokens: 1024 }],
  },
  {
    name: 'embeddings and other routes that carry no prompt are not judged',
    tiers: [[A, B]],
    estimate: 10_000,
    ceilings: { 'hub-a': { maxPromptTokens: 1024 } },
    judges: false,
    after: [['hub-a', 'hub-b']],
    excluded: null,
  },
];

describe('prompt ceiling step', () => {
  for (const r of rows) {
    it(r.name, () => {
      const ctx: PlacementContext = placementContext({
        estimatedTokens: r.estimate,
        limits: limits(r.ceilings),
        route: { path: r.judges === false ? '/v1/embeddings' : '/api/chat', judgesPrompt: r.judges !== false },
      });
      const out = promptCeilingStep.run(r.tiers, ctx);
      assert.deepEqual(ids(out.tiers), r.after);
      assert.deepEqual(out.record, r.excluded === null ? null : { estimatedTokens: r.estimate, excluded: r.excluded, overridden: false });
    });
  }

  it('at its default (no ceiling anywhere) the pipeline order is the order without the rule', () => {
    const ranked = [L, A, B, C];
    const without = place(
      ranked,
      placementContext({ estimatedTokens: 100_000 }),
      STEPS.filter((s) => s.key !== 'promptCeiling'),
    );
    const withRule = place(ranked, placementContext({ estimatedTokens: 100_000 }));
    assert.deepEqual(withRule.order, without.order);
    assert.equal(withRule.records.promptCeiling, null);
  });

  it('a pin at an over-ceiling node leads only the group it was put in', () => {
    const placed = place(
      [A, B, C],
      placementContext({
        estimatedTokens: 10_000,
        limits: limits({ 'hub-a': { maxPromptTokens: 1024 } }),
        pins: [{ scope: 'default', model: null, target: 'hub-a' }],
      }),
    );
    assert.deepEqual(
      placed.order.map((c) => c.node),
      ['hub-b', 'hub-c', 'hub-a'],
    );
  });
});
