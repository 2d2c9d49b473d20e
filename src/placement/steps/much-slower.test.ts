import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SlowerDemotion, ThroughputRecord } from '../../routing-log/placement-records.js';
import { NULL_PLACEMENT_RECORDS, type PlacementRecords } from '../../routing-log/entry.js';
import type { RoutingPin } from '../../config/settings-schema.js';
import type { ThroughputInput } from '../throughput-input.js';
import type { Candidate, Tiers } from '../types.js';
import { peerNode, tierIds } from './candidate-fixtures.js';
import { muchSlowerStep } from './much-slower.js';
import { throughputInput } from './throughput-fixtures.js';
import { placementContext } from '../context.fixture.js';

const MODEL = 'qwen3.6:27b';
const core7 = peerNode('core-7', 0);
const core7Unreported: Candidate = { ...peerNode('core-7', 2), loadReported: false };
const beta1 = peerNode('beta-1', 0);
const betaMax = peerNode('beta-max', 0);
const betaRed = peerNode('beta-red', 0);
const beta1Busy = peerNode('beta-1', 1);
const beta1Busier = peerNode('beta-1', 2);
const OPENCLAW = 35_809;

const PRIOR: ThroughputRecord = { estimatedTokens: OPENCLAW, budgetMs: 327_000, estimates: [], unmeasured: [], slowerDemoted: [], overridden: false };
const earlierWith = (throughput: ThroughputRecord | null): PlacementRecords => ({ ...NULL_PLACEMENT_RECORDS, throughput });

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
  loadReported: p.loadReported,
  fasterNode: f.node,
  fasterBackend: f.engine,
  fasterMs: fMs,
  fasterInFlight: f.queueDepth,
  fasterLoadReported: f.loadReported,
});

interface Row {
  name: string;
  tiers: Tiers;
  input: ThroughputInput;
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
    name: 'a demotion judged on a peer that reported no load says its queue depth was assumed',
    tiers: [[core7Unreported, betaMax, betaRed, beta1]],
    input: fleet({}, core7Unreported),
    expect: [[betaMax, betaRed, beta1, core7Unreported]],
    slowerDemoted: [demotion(core7Unreported, 162_910, betaMax, 34_651)],
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
    name: 'the walk behind the first node: core-7, much slower, no longer stays second ahead of beta-1 (not named in slowerDemoted)',
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
    name: 'every node predicted to miss the budget: nothing moves, however much faster one is than another',
    tiers: [[core7, beta1]],
    input: throughputInput(OPENCLAW, [
      [core7, 2_000_000],
      [beta1, 400_000],
    ]),
    expect: [[core7, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'every node predicted to miss, in more than one group: nothing moves in any',
    tiers: [[betaMax], [core7, beta1]],
    input: throughputInput(OPENCLAW, [
      [betaMax, 500_000],
      [core7, 2_000_000],
      [beta1, 400_000],
    ]),
    expect: [[betaMax], [core7, beta1]],
    slowerDemoted: [],
  },
  {
    name: 'where one node meets the budget, the misses the throughput step put behind are judged among themselves as usual',
    tiers: [[betaMax], [core7, beta1]],
    input: throughputInput(OPENCLAW, [
      [betaMax, 34_651],
      [core7, 2_000_000],
      [beta1, 400_000],
    ]),
    expect: [[betaMax], [beta1, core7]],
    slowerDemoted: [demotion(core7, 2_000_000, beta1, 400_000)],
  },
  {
    name: 'a prediction exactly at the budget meets it: a group with one is judged as usual',
    tiers: [[core7, beta1]],
    input: throughputInput(OPENCLAW, [
      [core7, 2_000_000],
      [beta1, 327_000],
    ]),
    expect: [[beta1, core7]],
    slowerDemoted: [demotion(core7, 2_000_000, beta1, 327_000)],
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
];

describe('muchSlowerStep (spec, "Much slower than a node as free")', () => {
  for (const row of rows) {
    it(row.name, () => {
      const out = muchSlowerStep.run(row.tiers, placementContext({ model: MODEL, pins: row.pins ?? [], throughput: row.input }), earlierWith(PRIOR));
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

describe('muchSlowerStep decides as judging every later node at every position does', () => {
  /**
   * The rule judged in full, as the step was first written: at each position, every node behind
   * it is asked whether it goes ahead. The step passes a position over when the fastest node
   * behind it cannot be fast enough; this proves that never changes an order or a record.
   */
  function judgedInFull(tier: readonly Candidate[], input: ThroughputInput, demoted: SlowerDemotion[]): Candidate[] {
    const ms = (c: Candidate) => input.predictions.get(c.id)?.predictedMs ?? null;
    const goes = (f: Candidate, p: Candidate, base: number) => {
      const fp = input.predictions.get(f.id);
      const pMs = ms(p);
      if (fp === undefined || fp.deadline || pMs === null || input.withheld.has(f.id)) return false;
      if (!(fp.predictedMs < pMs) || pMs < input.slowerRatio * fp.predictedMs || pMs - fp.predictedMs < input.slowerFloorMs) return false;
      const slots = input.statedSlots.get(f.id);
      return f.queueDepth <= base || (f.queueDepth === base + 1 && slots !== undefined && slots > f.queueDepth);
    };
    const list = tier.filter((c) => !input.withheld.has(c.id));
    const held = tier.filter((c) => input.withheld.has(c.id));
    const judgedHere = (c: Candidate) => ms(c) !== null && c.id !== input.affinityHeld;
    if (list.length === 0 || !judgedHere(list[0]!)) return [...tier];
    for (let at = 0; at < list.length - 1; at++) {
      const rankerFirst = list[at]!;
      for (;;) {
        const p = list[at]!;
        if (!judgedHere(p)) break;
        const rest = list.slice(at + 1);
        const ahead = rest.filter((f) => goes(f, p, Math.min(rankerFirst.queueDepth, p.queueDepth)));
        if (ahead.length === 0) break;
        if (at === 0) demoted.push(demotion(p, ms(p)!, ahead[0]!, ms(ahead[0]!)!));
        list.splice(at, list.length - at, ...ahead, p, ...rest.filter((c) => !ahead.includes(c)));
      }
    }
    return [...list, ...held];
  }

  // A fixed seed: the same 2,000 pools every run. The low bits of this generator repeat quickly, so only its high bits are used.
  let seed = 13;
  const next = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) >>> 12) % n;
  // 327,000 is the budget: predictions above it miss, so some pools are all slow.
  const MS = [5000, 9000, 22_080, 34_651, 38_973, 60_000, 162_910, 327_000, 1_200_000, 2_000_000];

  it('on 2,000 random groups of 2-9 nodes: predictions (some past the budget), missed deadlines, withheld nodes, queues, slots, ratios and floors', () => {
    let moved = 0;
    for (let n = 0; n < 2000; n++) {
      const nodes = Array.from({ length: 2 + next(8) }, (_, i) => peerNode(`n${i}`, next(3)));
      const predictions: [Candidate, number, boolean][] = nodes.filter(() => next(5) > 0).map((c) => [c, MS[next(MS.length)]! + next(3) * 1000, next(7) === 0]);
      const input = throughputInput(OPENCLAW, predictions, {
        withheld: new Set(nodes.filter(() => next(10) === 0).map((c) => c.id)),
        statedSlots: new Map(nodes.filter(() => next(3) === 0).map((c) => [c.id, 1 + next(4)] as const)),
        affinityHeld: next(6) === 0 ? nodes[next(nodes.length)]!.id : null,
        slowerRatio: [1, 1.5, 3, 5][next(4)]!,
        slowerFloorMs: [0, 20_000][next(2)]!,
      });
      const split = next(nodes.length);
      const tiers: Tiers = split === 0 ? [nodes] : [nodes.slice(0, split), nodes.slice(split)];
      const expectedDemoted: SlowerDemotion[] = [];
      const misses = (c: Candidate) => {
        const p = input.predictions.get(c.id);
        return p !== undefined && (p.deadline ? p.predictedMs >= input.budgetMs : p.predictedMs > input.budgetMs);
      };
      const judged = nodes.filter((c) => !input.withheld.has(c.id));
      const expected = judged.length > 0 && judged.every(misses) ? tiers : tiers.map((t) => judgedInFull(t, input, expectedDemoted));
      const out = muchSlowerStep.run(tiers, placementContext({ model: MODEL, pins: [], throughput: input }), earlierWith(PRIOR));
      assert.deepEqual(tierIds(out.tiers), tierIds(expected), `pool ${n}`);
      assert.deepEqual(out.record?.slowerDemoted, expectedDemoted, `pool ${n}`);
      if (tierIds(expected).flat().join() !== tierIds(tiers).flat().join()) moved++;
    }
    assert.ok(moved > 200 && moved < 1800, `both outcomes drawn (${moved} of 2,000 reordered)`);
  });
});
