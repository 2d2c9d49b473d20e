import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ThroughputRecord } from '../../routing-log/placement-records.js';
import type { ThroughputInput } from '../throughput-input.js';
import type { PlacementContext, Tiers } from '../types.js';
import type { RoutingPin } from '../../config/settings-schema.js';
import { localEngine, peerNode, tierIds } from './candidate-fixtures.js';
import { throughputStep } from './throughput.js';
import { throughputInput } from './throughput-fixtures.js';
import { placementContext } from '../context.fixture.js';

const MODEL = 'qwen3-coder:30b';
const core7 = peerNode('core-7', 0, 'high-end');
const beta1 = peerNode('beta-1', 0);
const betaMax = peerNode('beta-max', 0);
const fzzy = peerNode('fzzy', 0, 'cpu-only');
const busy = peerNode('beta-red', 1);
const local = localEngine('ollama', 0);
const llama = localEngine('llama', 0, 'llamacpp');

interface Row {
  name: string;
  tiers: Tiers;
  input?: ThroughputInput;
  pins?: readonly RoutingPin[];
  contention?: PlacementContext['contention'];
  expect: Tiers;
  /** The parts of the record the row is about; null: the record must be null. */
  record: Partial<ThroughputRecord> | null;
  /** The nodes whose estimate says being slow moved them (the rest say it did not). */
  moved?: readonly string[];
}

const rows: readonly Row[] = [
  {
    name: 'HUB_POOL_THROUGHPUT_PLACEMENT=off or a route it does not judge (no input): nothing moves, record null',
    tiers: [[core7, beta1]],
    expect: [[core7, beta1]],
    record: null,
  },
  {
    name: 'no candidate has applicable evidence: nothing moves, record null',
    tiers: [[core7, beta1]],
    input: throughputInput(8000, []),
    expect: [[core7, beta1]],
    record: null,
  },
  {
    name: 'a candidate predicted to miss the budget moves behind every one that is not (fzzy at 46k tokens)',
    tiers: [[fzzy, beta1]],
    input: throughputInput(46_000, [
      [fzzy, 1_122_000],
      [beta1, 93_000],
    ]),
    expect: [[beta1], [fzzy]],
    record: { unmeasured: [], slowerDemoted: [], overridden: false },
    moved: [fzzy.node],
  },
  {
    name: 'a node predicted slow also goes behind an unmeasured one: unmeasured is not known to be slow',
    tiers: [[fzzy, core7]],
    input: throughputInput(46_000, [[fzzy, 1_122_000]]),
    expect: [[core7], [fzzy]],
    record: { unmeasured: [] },
    moved: [fzzy.node],
  },
  {
    name: 'all slow means nothing moves',
    tiers: [[fzzy, core7]],
    input: throughputInput(46_000, [
      [fzzy, 1_122_000],
      [core7, 900_000],
    ]),
    expect: [[fzzy, core7]],
    record: { unmeasured: [] },
    moved: [],
  },
  {
    name: 'a slow node is judged within its group and never brought into an earlier one',
    tiers: [[fzzy], [beta1]],
    input: throughputInput(46_000, [
      [fzzy, 1_122_000],
      [beta1, 93_000],
    ]),
    expect: [[fzzy], [beta1]],
    record: { unmeasured: [] },
    moved: [],
  },
  {
    name: 'core-7, 2026-09-29: an unmeasured peer moves behind measured peers the ranker scored the same (7,731 tokens)',
    tiers: [[core7, beta1, betaMax]],
    input: throughputInput(7731, [
      [beta1, 32_000],
      [betaMax, 36_000],
    ]),
    expect: [[beta1, betaMax, core7]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'under 6,144 tokens an unmeasured peer keeps its place, which is how it gets measured',
    tiers: [[core7, beta1]],
    input: throughputInput(6000, [[beta1, 20_000]]),
    expect: [[core7, beta1]],
    record: { unmeasured: [] },
  },
  {
    name: 'at exactly 6,144 tokens an unmeasured peer moves behind a measured one of its score',
    tiers: [[core7, beta1]],
    input: throughputInput(6144, [[beta1, 20_000]]),
    expect: [[beta1, core7]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'never behind a busier node: an idle unmeasured peer stays ahead of a measured one with a request in flight',
    tiers: [[core7, busy]],
    input: throughputInput(20_000, [[busy, 40_000]]),
    expect: [[core7, busy]],
    record: { unmeasured: [] },
  },
  {
    name: 'a cpu-only prior also moves behind the other unmeasured peers of its score',
    tiers: [[fzzy, core7, beta1]],
    input: throughputInput(20_000, [[beta1, 40_000]]),
    expect: [[beta1, core7, fzzy]],
    record: {
      unmeasured: [
        { node: core7.node, backend: null, prior: 'unknown' },
        { node: fzzy.node, backend: null, prior: 'cpu-only' },
      ],
    },
  },
  {
    name: 'unmeasured peers the ranker already had behind the measured one did not move: none is listed',
    tiers: [[betaMax, core7, fzzy]],
    input: throughputInput(20_000, [[betaMax, 40_000]]),
    expect: [[betaMax, core7, fzzy]],
    record: { unmeasured: [] },
  },
  {
    name: 'only the unmeasured peers a measured one went ahead of are listed',
    tiers: [[core7, beta1, fzzy]],
    input: throughputInput(20_000, [[beta1, 40_000]]),
    expect: [[beta1, core7, fzzy]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'a cpu-only peer moved behind a measured one is listed; the unmeasured peer it now trails, already behind, is not',
    tiers: [[fzzy, betaMax, core7]],
    input: throughputInput(20_000, [[betaMax, 40_000]]),
    expect: [[betaMax, core7, fzzy]],
    record: { unmeasured: [{ node: fzzy.node, backend: null, prior: 'cpu-only' }] },
  },
  {
    name: 'no candidate measured to meet the budget: unmeasured peers keep their places',
    tiers: [[core7, beta1, fzzy]],
    input: throughputInput(46_000, [[fzzy, 1_122_000]]),
    expect: [[core7, beta1], [fzzy]],
    record: { unmeasured: [] },
  },
  {
    name: "this node's own engine keeps its place unmeasured (its evidence dies with a restart, its prefix cache does not)",
    tiers: [[localEngine('ollama', 1), beta1]],
    input: throughputInput(20_000, [[beta1, 40_000]]),
    expect: [[localEngine('ollama', 1), beta1]],
    record: { unmeasured: [] },
  },
  {
    name: 'a pinned peer keeps its place unmeasured: a pin is a statement, unmeasured only a prior',
    tiers: [[core7, beta1]],
    pins: [{ scope: 'model', model: MODEL, target: core7.node }],
    input: throughputInput(20_000, [[beta1, 40_000]]),
    expect: [[core7, beta1]],
    record: { unmeasured: [] },
  },
  {
    name: 'the engine prefix affinity holds keeps its place unmeasured',
    tiers: [[core7, beta1]],
    input: throughputInput(20_000, [[beta1, 40_000]], { affinityHeld: core7.id }),
    expect: [[core7, beta1]],
    record: { unmeasured: [] },
  },
  {
    name: 'a local engine contention is about to move does not hold unmeasured peers back',
    tiers: [[local, core7]],
    input: throughputInput(20_000, [[local, 40_000]], { score: () => 0 }),
    contention: {
      numCtx: 65536,
      busy: new Map([['ollama', [{ model: 'qwen3.8:27b', numCtx: 32768 }]]]),
      runsAt: new Map([['ollama', 65536]]),
      affinityHeld: null,
      pressureWeight: 0,
    },
    expect: [[local, core7]],
    record: { unmeasured: [] },
  },
  {
    name: 'an insufficient prior moves behind the other unmeasured peers of its score, as cpu-only does',
    tiers: [[peerNode('mini', 0, 'insufficient'), core7, beta1]],
    input: throughputInput(20_000, [[beta1, 40_000]]),
    expect: [[beta1, core7, peerNode('mini', 0, 'insufficient')]],
    record: {
      unmeasured: [
        { node: core7.node, backend: null, prior: 'unknown' },
        { node: peerNode('mini').node, backend: null, prior: 'cpu-only' },
      ],
    },
  },
  {
    name: 'a prediction exactly at the budget meets it: nothing moves behind',
    tiers: [[betaMax, beta1]],
    input: throughputInput(46_000, [
      [betaMax, 327_000],
      [beta1, 93_000],
    ]),
    expect: [[betaMax, beta1]],
    record: { unmeasured: [] },
  },
  {
    name: 'a node that just missed its deadline on this prompt is predicted at exactly the budget: that misses it, and the unmeasured peer goes first',
    tiers: [[beta1, core7]],
    // The reading a missed deadline leaves is tokens / budget, so the same prompt predicts the budget itself.
    input: throughputInput(20_000, [[core7, 400_000, true]], { budgetMs: 400_000 }),
    expect: [[beta1], [core7]],
    record: { unmeasured: [] },
    moved: [core7.node],
  },
  {
    name: 'a missed deadline predicted under the budget for a smaller prompt is only a lower bound: no unmeasured peer gives way to it',
    tiers: [[beta1, core7]],
    input: throughputInput(15_000, [[core7, 250_000, true]], { budgetMs: 300_000 }),
    expect: [[beta1, core7]],
    record: { unmeasured: [] },
    moved: [],
  },
  {
    name: 'a missed deadline beside a node timed to meet the budget: the unmeasured peer gives way to the timed one only',
    tiers: [[beta1, core7, betaMax]],
    input: throughputInput(15_000, [
      [core7, 250_000, true],
      [betaMax, 40_000],
    ]),
    expect: [[core7, betaMax, beta1]],
    record: { unmeasured: [{ node: beta1.node, backend: null, prior: 'unknown' }] },
    moved: [],
  },
  {
    name: 'an unmeasured peer goes just behind the node timed to meet the budget, not behind a missed deadline after it',
    tiers: [[beta1, betaMax, core7]],
    input: throughputInput(15_000, [
      [betaMax, 40_000],
      [core7, 250_000, true],
    ]),
    expect: [[betaMax, beta1, core7]],
    record: { unmeasured: [{ node: beta1.node, backend: null, prior: 'unknown' }] },
    moved: [],
  },
  {
    name: "an unmeasured peer goes just behind the timed node, not behind this node's unmeasured engine after it",
    tiers: [[core7, beta1, local]],
    input: throughputInput(20_000, [[beta1, 40_000]], { score: () => 0 }),
    expect: [[beta1, core7, local]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'a cpu-only prior goes behind the timed node and the unknown peers, not behind the engines that keep their place after them',
    tiers: [[fzzy, core7, beta1, local]],
    input: throughputInput(20_000, [[beta1, 40_000]], { score: () => 0 }),
    expect: [[beta1, core7, fzzy, local]],
    record: {
      unmeasured: [
        { node: core7.node, backend: null, prior: 'unknown' },
        { node: fzzy.node, backend: null, prior: 'cpu-only' },
      ],
    },
  },
  {
    name: 'a cpu-only prior that went behind an unknown peer only, not behind the timed node, is not listed',
    tiers: [[betaMax, fzzy, core7]],
    input: throughputInput(20_000, [[betaMax, 40_000]]),
    expect: [[betaMax, core7, fzzy]],
    record: { unmeasured: [] },
  },
  {
    name: 'a pin at another node holds back no unmeasured peer',
    tiers: [[core7, beta1]],
    pins: [{ scope: 'model', model: MODEL, target: betaMax.node }],
    input: throughputInput(20_000, [[beta1, 40_000]]),
    expect: [[beta1, core7]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'with contention not judged, a measured local engine that meets the budget holds unmeasured peers of its score back',
    tiers: [[core7, local]],
    input: throughputInput(20_000, [[local, 40_000]], { score: () => 0 }),
    expect: [[local, core7]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'a local engine busy only with work this request can join is not contended: it still holds unmeasured peers back',
    tiers: [[core7, local]],
    input: throughputInput(20_000, [[local, 40_000]], { score: () => 0 }),
    contention: {
      numCtx: 65536,
      busy: new Map([['ollama', [{ model: MODEL, numCtx: 65536 }]]]),
      // No window of its own: the engine runs at the one the request named.
      runsAt: new Map(),
      affinityHeld: null,
      pressureWeight: 0,
    },
    expect: [[local, core7]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'a local engine with nothing listed in flight is not contended: it still holds unmeasured peers back',
    tiers: [[core7, local]],
    input: throughputInput(20_000, [[local, 40_000]], { score: () => 0 }),
    contention: { numCtx: 65536, busy: new Map(), runsAt: new Map([['ollama', 65536]]), affinityHeld: null, pressureWeight: 0 },
    expect: [[local, core7]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'a llama.cpp engine busy with this model runs one window whatever num_ctx names: not contended, it still holds unmeasured peers back',
    tiers: [[core7, llama]],
    input: throughputInput(20_000, [[llama, 40_000]], { score: () => 0 }),
    contention: {
      numCtx: 65536,
      busy: new Map([['llama', [{ model: MODEL, numCtx: null }]]]),
      runsAt: new Map([['llama', null]]),
      affinityHeld: null,
      pressureWeight: 0,
    },
    expect: [[llama, core7]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
  {
    name: 'a contended local engine that prefix affinity holds stays, so it still holds unmeasured peers back',
    tiers: [[core7, local]],
    input: throughputInput(20_000, [[local, 40_000]], { score: () => 0, affinityHeld: local.id }),
    contention: {
      numCtx: 65536,
      busy: new Map([['ollama', [{ model: 'qwen3.8:27b', numCtx: 32768 }]]]),
      runsAt: new Map([['ollama', 65536]]),
      affinityHeld: local.id,
      pressureWeight: 0,
    },
    expect: [[local, core7]],
    record: { unmeasured: [{ node: core7.node, backend: null, prior: 'unknown' }] },
  },
];

describe('throughputStep (spec, "Throughput-aware placement")', () => {
  for (const row of rows) {
    it(row.name, () => {
      const ctx: PlacementContext = placementContext({
        model: MODEL,
        pins: row.pins ?? [],
        ...(row.input ? { throughput: row.input } : {}),
        ...(row.contention ? { contention: row.contention } : {}),
      });
      const out = throughputStep.run(row.tiers, ctx);
      assert.deepEqual(tierIds(out.tiers.filter((t) => t.length > 0)), tierIds(row.expect));
      if (row.record === null) assert.equal(out.record, null);
      else {
        assert.notEqual(out.record, null);
        for (const [k, v] of Object.entries(row.record)) assert.deepEqual(out.record![k as keyof ThroughputRecord], v, k);
        if (row.moved !== undefined)
          assert.deepEqual(
            out.record!.estimates.filter((e) => e.moved).map((e) => e.node),
            row.moved,
          );
      }
    });
  }

  it('records each estimate with its source, the size it was read from, and whether it misses the budget', () => {
    const out = throughputStep.run(
      [[fzzy, beta1]],
      placementContext({
        model: MODEL,
        pins: [],
        throughput: throughputInput(46_000, [
          [fzzy, 1_122_000],
          [beta1, 93_000],
        ]),
      }),
    );
    assert.deepEqual(out.record, {
      estimatedTokens: 46_000,
      budgetMs: 327_000,
      estimates: [
        {
          node: fzzy.node,
          backend: null,
          backendId: null,
          tokensPerSec: 41,
          fromPromptTokens: 46_000,
          extrapolated: false,
          predictedMs: 1_122_000,
          source: 'observed',
          deadline: false,
          slow: true,
          moved: true,
        },
        {
          node: beta1.node,
          backend: null,
          backendId: null,
          tokensPerSec: 494.6,
          fromPromptTokens: 46_000,
          extrapolated: false,
          predictedMs: 93_000,
          source: 'observed',
          deadline: false,
          slow: false,
          moved: false,
        },
      ],
      unmeasured: [],
      slowerDemoted: [],
      overridden: false,
    });
  });
});
