import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ContentionRecord, SlowerDemotion, ThroughputRecord } from '../../routing-log/placement-records.js';
import { NULL_PLACEMENT_RECORDS, type PlacementRecords } from '../../routing-log/entry.js';
import type { RoutingPin } from '../../config/settings-schema.js';
import type { ThroughputInput } from '../throughput-input.js';
import type { Candidate, Tiers } from '../types.js';
import { localEngine, peerNode, tierIds } from './candidate-fixtures.js';
import { muchSlowerStep } from './much-slower.js';
import { throughputInput } from './throughput-fixtures.js';
import { placementContext } from '../context.fixture.js';

const MODEL = 'qwen3.6:27b';
const core7 = peerNode('core-7', 0);
const beta1 = peerNode('beta-1', 0);
const betaMax = peerNode('beta-max', 0);
const betaRed = peerNode('beta-red', 0);
const beta1Busy = peerNode('beta-1', 1);
const beta1Busier = peerNode('beta-1', 2);
const OPENCLAW = 35_809;

const PRIOR: ThroughputRecord = { estimatedTokens: OPENCLAW, budgetMs: 327_000, estimates: [], unmeasured: [], slowerDemoted: [], overridden: false };
const earlierWith = (throughput: ThroughputRecord | null, contention: ContentionRecord | null = null): PlacementRecords => ({
  ...NULL_PLACEMENT_RECORDS,
  throughput,
  contention,
});

const fleet = (over: Partial<ThroughputInput> = {}, c7: Candidate = core7, b1: Candidate = beta1) =>
  throughputInput(
    OPENCLAW,
    [
      [c7, 162_910],
      [betaMax, 34_651],
      [betaRed, 38_973],
      [b1, 22_080],
    ],
    over,
  );

const demotion = (p: Candidate, pMs: number, f: Candidate, fMs: number): SlowerDemotion => ({
  node: p.node,
  backend: p.engine,
  predictedMs: pMs,
  inFlight: p.queueDepth,
  fasterNode: f.node,
  fasterBackend: f.engine,
  fasterMs: fMs,
  fasterInFlight: f.queueDepth,
});

interface Row {
  name: string;
  tiers: Tiers;
  input: ThroughputInput;
  earlier?: PlacementRecords;
  pins?: readonly RoutingPin[];
  expect: Tiers;
  slowerDemoted: readonly SlowerDemotion[] | null;
}

const rows: readonly Row[] = [
  {
    name: "the 2026-09-30 re-bank: every GPU node goes ahead of core-7, in the ranker's order, and beta-max then stays first (35 s is not 3 × 22 s)",
    tiers: [[core7, betaMax, betaRed, beta1]],
    input: fleet(),
    expect: [[betaMax, betaRed, beta1, core7]],
    slowerDemoted: [demotion(core7, 162_910, betaMax, 34_651)],
  },
  {
    name: 'HUB_POOL_SLOWER_PLACEMENT_RATIO 1000 turns the rule off on its own',
    tiers: [[core7, betaMax, betaRed, beta1]],
    input: fleet({ slowerRatio: 1000 }),
    expect: [[core7, betaMax, betaRed, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'the floor keeps the order when the gap is seconds (3× faster but under 20 s sooner)',
    tiers: [[core7, beta1]],
    input: throughputInput(OPENCLAW, [
      [core7, 27_000],
      [beta1, 9000],
    ]),
    expect: [[core7, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'HUB_POOL_SLOWER_PLACEMENT_FLOOR_MS 0 lets that same gap move',
    tiers: [[core7, beta1]],
    input: throughputInput(
      OPENCLAW,
      [
        [core7, 27_000],
        [beta1, 9000],
      ],
      { slowerFloorMs: 0 },
    ),
    expect: [[beta1, core7]],
    slowerDemoted: [demotion(core7, 27_000, beta1, 9000)],
  },
  {
    name: 'a faster node with a request in flight does not pass an idle one without a free slot it states',
    tiers: [[core7, beta1Busy]],
    input: fleet({}, core7, beta1Busy),
    expect: [[core7, beta1Busy]],
    slowerDemoted: [],
  },
  {
    name: 'the one-request margin: a faster node stating a free slot goes ahead with one more in flight',
    tiers: [[core7, beta1Busy]],
    input: fleet({ statedSlots: new Map([[beta1Busy.id, 4]]) }, core7, beta1Busy),
    expect: [[beta1Busy, core7]],
    slowerDemoted: [demotion(core7, 162_910, beta1Busy, 22_080)],
  },
  {
    name: 'the margin is one request: two more in flight stays behind even with free slots',
    tiers: [[core7, beta1Busier]],
    input: fleet({ statedSlots: new Map([[beta1Busier.id, 4]]) }, core7, beta1Busier),
    expect: [[core7, beta1Busier]],
    slowerDemoted: [],
  },
  {
    name: 'a first node nothing has measured leaves the whole walk as ranked',
    tiers: [[core7, betaMax, beta1]],
    input: throughputInput(OPENCLAW, [
      [betaMax, 160_000],
      [beta1, 22_080],
    ]),
    expect: [[core7, betaMax, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'the rest of the walk is judged too: a much slower second node goes behind a much faster third, not named in slowerDemoted',
    tiers: [[betaMax, core7, beta1]],
    input: fleet(),
    expect: [[betaMax, beta1, core7]],
    slowerDemoted: [],
  },
  {
    name: 'a pinned first node keeps the front',
    tiers: [[core7, beta1]],
    input: fleet(),
    pins: [{ scope: 'model', model: MODEL, target: core7.node }],
    expect: [[core7, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'the engine prefix affinity holds keeps the front',
    tiers: [[core7, beta1]],
    input: fleet({ affinityHeld: core7.id }),
    expect: [[core7, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'an unmeasured node is never moved ahead',
    tiers: [[core7, peerNode('core-9', 0)]],
    input: fleet(),
    expect: [[core7, peerNode('core-9', 0)]],
    slowerDemoted: [],
  },
  {
    name: 'a missed deadline is only a lower bound: it never makes a node the faster one',
    tiers: [[core7, beta1]],
    input: throughputInput(OPENCLAW, [
      [core7, 162_910],
      [beta1, 22_080, true],
    ]),
    expect: [[core7, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'within a group: a fast node in a later group is never brought forward',
    tiers: [[core7], [beta1]],
    input: fleet(),
    expect: [[core7], [beta1]],
    slowerDemoted: [],
  },
  {
    name: 'under 6,144 tokens nothing moves',
    tiers: [[core7, beta1]],
    input: throughputInput(6000, [
      [core7, 162_910],
      [beta1, 22_080],
    ]),
    expect: [[core7, beta1]],
    slowerDemoted: null,
  },
  {
    name: 'a withheld engine is never judged first: the first node not withheld is',
    tiers: [[beta1, core7, betaMax]],
    input: fleet({ withheld: new Set([beta1.id]) }),
    expect: [[betaMax, core7, beta1]],
    slowerDemoted: [demotion(core7, 162_910, betaMax, 34_651)],
  },
  {
    name: 'a withheld engine is never brought forward, however fast it reads',
    tiers: [[core7, beta1]],
    input: fleet({ withheld: new Set([beta1.id]) }),
    expect: [[core7, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'a local engine contention moved behind the peers is never brought back ahead of them',
    tiers: [[core7, localEngine('ollama', 0)]],
    input: throughputInput(OPENCLAW, [
      [core7, 162_910],
      [localEngine('ollama', 0), 22_080],
    ]),
    earlier: earlierWith(PRIOR, {
      numCtx: null,
      demoted: [{ node: 'local', backend: 'ollama', busyWith: [{ model: 'x', numCtx: null }], runsAt: null, behind: [core7.node], overriddenBy: null }],
      overridden: false,
    }),
    expect: [[core7, localEngine('ollama', 0)]],
    slowerDemoted: [],
  },
  {
    name: 'exactly 6,144 estimated tokens is a large prompt: the rule applies',
    tiers: [[core7, beta1]],
    input: throughputInput(6144, [
      [core7, 162_910],
      [beta1, 22_080],
    ]),
    expect: [[beta1, core7]],
    slowerDemoted: [demotion(core7, 162_910, beta1, 22_080)],
  },
  {
    name: 'exactly the ratio faster is fast enough (60 s against 20 s at ratio 3)',
    tiers: [[core7, beta1]],
    input: throughputInput(OPENCLAW, [
      [core7, 60_000],
      [beta1, 20_000],
    ]),
    expect: [[beta1, core7]],
    slowerDemoted: [demotion(core7, 60_000, beta1, 20_000)],
  },
  {
    name: 'exactly the floor sooner is soon enough (100 s against 80 s, floor 20 s, ratio 1.25)',
    tiers: [[core7, beta1]],
    input: throughputInput(
      OPENCLAW,
      [
        [core7, 100_000],
        [beta1, 80_000],
      ],
      { slowerRatio: 1.25 },
    ),
    expect: [[beta1, core7]],
    slowerDemoted: [demotion(core7, 100_000, beta1, 80_000)],
  },
  {
    name: 'an equal prediction is not faster, even at ratio 1 and floor 0',
    tiers: [[core7, beta1]],
    input: throughputInput(
      OPENCLAW,
      [
        [core7, 50_000],
        [beta1, 50_000],
      ],
      { slowerRatio: 1, slowerFloorMs: 0 },
    ),
    expect: [[core7, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'one more in flight on a node whose stated slots it already fills stays behind',
    tiers: [[core7, beta1Busy]],
    input: fleet({ statedSlots: new Map([[beta1Busy.id, 1]]) }, core7, beta1Busy),
    expect: [[core7, beta1Busy]],
    slowerDemoted: [],
  },
  {
    name: 'the margin counts from the node the ranker put first, not afresh from a busier node that moved ahead of it',
    tiers: [[core7, peerNode('beta-max', 1), beta1Busy]],
    input: throughputInput(
      OPENCLAW,
      [
        [core7, 162_910],
        [peerNode('beta-max', 1), 50_000],
        [beta1Busy, 15_000],
      ],
      { statedSlots: new Map([[betaMax.id, 4]]) },
    ),
    expect: [[peerNode('beta-max', 1), core7, beta1Busy]],
    slowerDemoted: [demotion(core7, 162_910, peerNode('beta-max', 1), 50_000)],
  },
  {
    name: 'the margin counts from the node being passed when that one is idler than the ranker first',
    tiers: [[peerNode('core-7', 2), betaMax, beta1Busier]],
    input: throughputInput(OPENCLAW, [
      [peerNode('core-7', 2), 162_910],
      [betaMax, 50_000],
      [beta1Busier, 15_000],
    ]),
    expect: [[betaMax, beta1Busier, peerNode('core-7', 2)]],
    slowerDemoted: [demotion(peerNode('core-7', 2), 162_910, betaMax, 50_000)],
  },
  {
    name: 'a local engine that contention judged but left in place (nothing to give way to) is brought ahead like any other',
    tiers: [[core7, localEngine('ollama', 0)]],
    input: throughputInput(OPENCLAW, [
      [core7, 162_910],
      [localEngine('ollama', 0), 22_080],
    ]),
    earlier: earlierWith(PRIOR, {
      numCtx: null,
      demoted: [{ node: 'local', backend: 'ollama', busyWith: [{ model: 'x', numCtx: null }], runsAt: null, behind: [], overriddenBy: null }],
      overridden: false,
    }),
    expect: [[localEngine('ollama', 0), core7]],
    slowerDemoted: [demotion(core7, 162_910, localEngine('ollama', 0), 22_080)],
  },
  {
    name: 'a group of withheld engines only (the last one withholding makes) stays as it is',
    tiers: [[core7], [betaMax, beta1]],
    input: fleet({ withheld: new Set([betaMax.id, beta1.id]) }),
    expect: [[core7], [betaMax, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'the new first node is judged the same way: a much faster node passes it too, and both moves are named',
    tiers: [[core7, betaMax, beta1]],
    input: throughputInput(OPENCLAW, [
      [core7, 162_910],
      [betaMax, 50_000],
      [beta1, 15_000],
    ]),
    expect: [[beta1, betaMax, core7]],
    slowerDemoted: [demotion(core7, 162_910, betaMax, 50_000), demotion(betaMax, 50_000, beta1, 15_000)],
  },
  {
    name: 'once the engine prefix affinity holds reaches the front, it keeps it',
    tiers: [[core7, betaMax, beta1]],
    input: throughputInput(
      OPENCLAW,
      [
        [core7, 162_910],
        [betaMax, 50_000],
        [beta1, 15_000],
      ],
      { affinityHeld: betaMax.id },
    ),
    expect: [[betaMax, beta1, core7]],
    slowerDemoted: [demotion(core7, 162_910, betaMax, 50_000)],
  },
  {
    name: 'only the engine contention moved stays behind: another local engine is brought ahead as usual',
    tiers: [[core7, localEngine('llama', 0, 'llamacpp')]],
    input: throughputInput(OPENCLAW, [
      [core7, 162_910],
      [localEngine('llama', 0, 'llamacpp'), 22_080],
    ]),
    earlier: earlierWith(PRIOR, {
      numCtx: null,
      demoted: [{ node: 'local', backend: 'ollama', busyWith: [{ model: 'x', numCtx: null }], runsAt: null, behind: [core7.node], overriddenBy: null }],
      overridden: false,
    }),
    expect: [[localEngine('llama', 0, 'llamacpp'), core7]],
    slowerDemoted: [demotion(core7, 162_910, localEngine('llama', 0, 'llamacpp'), 22_080)],
  },
];

describe('muchSlowerStep (spec, "Much slower than a node as free")', () => {
  for (const row of rows) {
    it(row.name, () => {
      const out = muchSlowerStep.run(
        row.tiers,
        placementContext({ model: MODEL, pins: row.pins ?? [], throughput: row.input }),
        row.earlier ?? earlierWith(PRIOR),
      );
      assert.deepEqual(tierIds(out.tiers), tierIds(row.expect));
      if (row.slowerDemoted === null) assert.equal(out.record?.slowerDemoted.length, 0);
      else assert.deepEqual(out.record?.slowerDemoted, row.slowerDemoted);
    });
  }

  it('keeps a null throughput record null (no evidence: nothing to judge)', () => {
    const out = muchSlowerStep.run([[core7, beta1]], placementContext({ model: MODEL, pins: [], throughput: fleet() }), earlierWith(null));
    assert.equal(out.record, null);
    assert.deepEqual(tierIds(out.tiers), [[core7.id, beta1.id]]);
  });
});
