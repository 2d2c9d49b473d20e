import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { limits, placementContext } from '../context.fixture.js';
import { localEngine, peerAt as peer } from './candidate-fixtures.js';
import { place, STEPS } from '../pipeline.js';
import type { NodeLimits, RequestedWindow, Tiers } from '../types.js';
import { requestedWindow } from '../window.js';
import { contextCapStep } from './context-cap.js';

const L = localEngine('ollama');
const A = peer('hub-a');
const B = peer('hub-b');
const C = peer('hub-c');
const ids = (tiers: Tiers) => tiers.map((t) => t.map((c) => c.node));

describe('requestedWindow', () => {
  it("is options.num_ctx when the request names one, with source 'request'", () =>
    assert.deepEqual(requestedWindow(65_536, 900), { numCtx: 65_536, source: 'request' }));
  it("is the prompt estimate when it names none, with source 'estimated'", () =>
    assert.deepEqual(requestedWindow(null, 44_340), { numCtx: 44_340, source: 'estimated' }));
});

/** Spec, "Context caps", placing a request: every bullet as a row. */
const rows: readonly {
  name: string;
  tiers: Tiers;
  window: RequestedWindow;
  caps: Record<string, Partial<NodeLimits>>;
  judges?: boolean;
  after: string[][];
  excluded: { node: string; maxNumCtx: number }[] | null;
}[] = [
  {
    name: 'no candidate has a cap: the record is null',
    tiers: [[A, B]],
    window: { numCtx: 65_536, source: 'request' },
    caps: {},
    after: [['hub-a', 'hub-b']],
    excluded: null,
  },
  {
    name: 'a node capped below the requested num_ctx goes behind one that can take it',
    tiers: [[A, B]],
    window: { numCtx: 65_536, source: 'request' },
    caps: { 'hub-a': { maxNumCtx: 16_384 }, 'hub-b': { maxNumCtx: 65_536 } },
    after: [['hub-b'], ['hub-a']],
    excluded: [{ node: 'hub-a', maxNumCtx: 16_384 }],
  },
  {
    name: 'an uncapped node takes any window',
    tiers: [[A, B]],
    window: { numCtx: 262_144, source: 'request' },
    caps: { 'hub-a': { maxNumCtx: 16_384 } },
    after: [['hub-b'], ['hub-a']],
    excluded: [{ node: 'hub-a', maxNumCtx: 16_384 }],
  },
  {
    name: 'a cap at the window takes it',
    tiers: [[A, B]],
    window: { numCtx: 16_384, source: 'request' },
    caps: { 'hub-a': { maxNumCtx: 16_384 } },
    after: [['hub-a', 'hub-b']],
    excluded: [],
  },
  {
    name: 'without num_ctx the estimate is judged against the cap',
    tiers: [[L, A]],
    window: { numCtx: 44_340, source: 'estimated' },
    caps: { local: { maxNumCtx: 16_384 } },
    after: [['hub-a'], ['local']],
    excluded: [{ node: 'local', maxNumCtx: 16_384 }],
  },
  {
    name: 'two small-window nodes rank ahead of a large one while the prompt fits them',
    tiers: [[A, B, C]],
    window: { numCtx: 3000, source: 'estimated' },
    caps: { 'hub-a': { maxNumCtx: 4096 }, 'hub-b': { maxNumCtx: 4096 }, 'hub-c': { maxNumCtx: 65_536 } },
    after: [['hub-a', 'hub-b', 'hub-c']],
    excluded: [],
  },
  {
    name: 'every candidate capped below the window: nothing moves',
    tiers: [[A, B]],
    window: { numCtx: 131_072, source: 'request' },
    caps: { 'hub-a': { maxNumCtx: 16_384 }, 'hub-b': { maxNumCtx: 65_536 } },
    after: [['hub-a', 'hub-b']],
    excluded: [],
  },
  {
    name: 'embeddings are not judged',
    tiers: [[A, B]],
    window: { numCtx: 65_536, source: 'estimated' },
    caps: { 'hub-a': { maxNumCtx: 1024 } },
    judges: false,
    after: [['hub-a', 'hub-b']],
    excluded: null,
  },
];

describe('context cap step', () => {
  for (const r of rows) {
    it(r.name, () => {
      const out = contextCapStep.run(
        r.tiers,
        placementContext({
          window: r.window,
          limits: limits(r.caps),
          route: { path: r.judges === false ? '/api/embed' : '/api/chat', judgesPrompt: r.judges !== false },
        }),
      );
      assert.deepEqual(ids(out.tiers), r.after);
      assert.deepEqual(out.record, r.excluded === null ? null : { numCtx: r.window.numCtx, source: r.window.source, excluded: r.excluded, overridden: false });
    });
  }

  it('is the outermost split: a node over its cap stays behind one over only its ceiling', () => {
    // hub-a can take the window but its ceiling is low; hub-b's cap is too small. A reload or a truncation is worse than slow.
    const ctx = placementContext({
      estimatedTokens: 20_000,
      window: { numCtx: 20_000, source: 'estimated' },
      limits: limits({ 'hub-a': { maxPromptTokens: 1024 }, 'hub-b': { maxNumCtx: 16_384 } }),
    });
    const placed = place([B, A, C], ctx);
    assert.deepEqual(
      placed.order.map((c) => c.node),
      ['hub-c', 'hub-a', 'hub-b'],
    );
    assert.deepEqual(placed.records.contextCap?.excluded, [{ node: 'hub-b', maxNumCtx: 16_384 }]);
    assert.deepEqual(placed.records.promptCeiling?.excluded, [{ node: 'hub-a', maxPromptTokens: 1024 }]);
  });

  it('runs first of the splits in STEPS', () => {
    const keys = STEPS.map((s) => s.key);
    assert.ok(keys.indexOf('contextCap') < keys.indexOf('promptCeiling'));
  });

  it('at its default (no cap anywhere) the pipeline order is the order without the rule', () => {
    const ctx = placementContext({ window: { numCtx: 262_144, source: 'request' } });
    const without = place(
      [L, A, B],
      ctx,
      STEPS.filter((s) => s.key !== 'contextCap'),
    );
    const withRule = place([L, A, B], ctx);
    assert.deepEqual(withRule.order, without.order);
    assert.equal(withRule.records.contextCap, null);
  });
});
