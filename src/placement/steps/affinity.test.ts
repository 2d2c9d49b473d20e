import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AffinityRecord } from '../../routing-log/entry.js';
import type { AffinityPlacement } from '../affinity/affinity-table.js';
import { place } from '../pipeline.js';
import type { Candidate, PlacementContext, Tiers } from '../types.js';
import { affinityHeldId, affinityOutcome, affinityStep, qualifies, type AffinityContext } from './affinity.js';
import { pinStep } from './pin.js';
import { placementContext } from '../context.fixture.js';
import { localEngine as local, peerAt as peer } from './candidate-fixtures.js';

const CORE1 = 'core-1.tail0.ts.net';
const CORE2 = 'core-2.tail0.ts.net';
const ids = (tiers: Tiers) => tiers.map((t) => t.map((c) => c.id));
const ctx = (affinity: AffinityContext | null): PlacementContext => placementContext({ model: 'qwen3:8b', pins: [], affinity });
const remembering = (node: string, backendId: string | null, maxInFlight = 2, margin = 0): AffinityContext => ({
  keySource: 'hashed',
  remembered: { node, backendId },
  maxInFlight,
  margin,
});

describe('qualifies: the limit counts the request being placed; the margin widens only a limit that is on', () => {
  const rows: readonly { name: string; inFlight: number; least: number | null; max: number; margin: number; expect: boolean }[] = [
    { name: 'idle at limit 2', inFlight: 0, least: 0, max: 2, margin: 0, expect: true },
    { name: 'one other in flight at limit 2', inFlight: 1, least: 0, max: 2, margin: 0, expect: true },
    { name: 'two in flight at limit 2 hands on', inFlight: 2, least: 0, max: 2, margin: 0, expect: false },
    { name: 'limit 1 is only when idle', inFlight: 1, least: 5, max: 1, margin: 0, expect: false },
    { name: 'margin 0 widens nothing even when the rest is busier', inFlight: 3, least: 3, max: 2, margin: 0, expect: false },
    { name: 'past the limit but within the margin of the least-loaded other', inFlight: 4, least: 2, max: 2, margin: 2, expect: true },
    { name: 'past the limit and beyond the margin', inFlight: 5, least: 2, max: 2, margin: 2, expect: false },
    { name: 'a margin with no other candidate measures from nothing', inFlight: 4, least: null, max: 2, margin: 3, expect: false },
    { name: 'with no other candidate even a queue within the margin gets nothing from it', inFlight: 3, least: null, max: 2, margin: 3, expect: false },
    { name: 'a margin at limit 0 does nothing (beta-max, 2026-09-29)', inFlight: 0, least: 0, max: 0, margin: 3, expect: false },
  ];
  for (const r of rows) it(r.name, () => assert.equal(qualifies(r.inFlight, r.least, r.max, r.margin), r.expect));
});

describe('affinityStep', () => {
  const base = { key: 'hashed', maxInFlight: 2, affinityMargin: 0 } as const;
  const cases: readonly { name: string; tiers: Tiers; affinity: AffinityContext | null; expect: Tiers; record: AffinityRecord | null }[] = [
    {
      name: 'off (no context): the order stands and the row says nothing',
      tiers: [[local('ollama'), peer(CORE2)]],
      affinity: null,
      expect: [[local('ollama'), peer(CORE2)]],
      record: null,
    },
    {
      name: "a session's first call: miss, nothing moves",
      tiers: [[local('ollama'), peer(CORE2)]],
      affinity: { keySource: 'header', remembered: null, maxInFlight: 2, margin: 0 },
      expect: [[local('ollama'), peer(CORE2)]],
      record: { ...base, key: 'header', outcome: 'miss', qualified: false, remembered: null, inFlight: null, loadReported: null, leastLoadedInFlight: null },
    },
    {
      name: 'remembered node no longer a candidate: miss that still names it',
      tiers: [[local('ollama'), peer(CORE2)]],
      affinity: remembering(CORE1, null),
      expect: [[local('ollama'), peer(CORE2)]],
      record: { ...base, outcome: 'miss', qualified: false, remembered: CORE1, inFlight: null, loadReported: null, leastLoadedInFlight: null },
    },
    {
      name: 'remembered peer under the limit moves to the front: qualified hit',
      tiers: [[local('ollama'), peer(CORE1, 1), peer(CORE2)]],
      affinity: remembering(CORE1, null),
      expect: [[peer(CORE1, 1), local('ollama'), peer(CORE2)]],
      record: { ...base, outcome: 'hit', qualified: true, remembered: CORE1, inFlight: 1, loadReported: true, leastLoadedInFlight: 0 },
    },
    {
      name: 'remembered engine is a specific local engine, not any engine on the node',
      tiers: [[local('ollama'), local('vllm')]],
      affinity: remembering('local', 'vllm'),
      expect: [[local('vllm'), local('ollama')]],
      record: { ...base, outcome: 'hit', qualified: true, remembered: 'local', inFlight: 0, loadReported: true, leastLoadedInFlight: 0 },
    },
    {
      name: 'at its limit it stands aside: skipped, unqualified',
      tiers: [[peer(CORE2), peer(CORE1, 2)]],
      affinity: remembering(CORE1, null),
      expect: [[peer(CORE2), peer(CORE1, 2)]],
      record: { ...base, outcome: 'skipped', qualified: false, remembered: CORE1, inFlight: 2, loadReported: true, leastLoadedInFlight: 0 },
    },
    {
      name: 'the ranker put it first on its own while it stood aside: unqualified hit',
      tiers: [[peer(CORE1, 2), peer(CORE2, 3)]],
      affinity: remembering(CORE1, null),
      expect: [[peer(CORE1, 2), peer(CORE2, 3)]],
      record: { ...base, outcome: 'hit', qualified: false, remembered: CORE1, inFlight: 2, loadReported: true, leastLoadedInFlight: 3 },
    },
    {
      name: 'the margin keeps it when the whole fleet is busy',
      tiers: [[peer(CORE2, 3), peer(CORE1, 4)]],
      affinity: remembering(CORE1, null, 2, 1),
      expect: [[peer(CORE1, 4), peer(CORE2, 3)]],
      record: { ...base, affinityMargin: 1, outcome: 'hit', qualified: true, remembered: CORE1, inFlight: 4, loadReported: true, leastLoadedInFlight: 3 },
    },
    {
      name: 'it moves only within its own tier, never into an earlier one',
      tiers: [[peer(CORE2)], [local('ollama'), peer(CORE1)]],
      affinity: remembering(CORE1, null),
      expect: [[peer(CORE2)], [peer(CORE1), local('ollama')]],
      record: { ...base, outcome: 'skipped', qualified: true, remembered: CORE1, inFlight: 0, loadReported: true, leastLoadedInFlight: 0 },
    },
    {
      name: 'the only candidate: no other to measure a margin from, so past its limit it stands aside',
      tiers: [[peer(CORE1, 3)]],
      affinity: remembering(CORE1, null, 2, 5),
      expect: [[peer(CORE1, 3)]],
      record: { ...base, affinityMargin: 5, outcome: 'hit', qualified: false, remembered: CORE1, inFlight: 3, loadReported: true, leastLoadedInFlight: null },
    },
    {
      name: 'the margin is measured from the least-loaded other candidate, not the busiest',
      tiers: [[peer(CORE2, 1), local('ollama', 6), peer(CORE1, 4)]],
      affinity: remembering(CORE1, null, 2, 2),
      expect: [[peer(CORE2, 1), local('ollama', 6), peer(CORE1, 4)]],
      record: { ...base, affinityMargin: 2, outcome: 'skipped', qualified: false, remembered: CORE1, inFlight: 4, loadReported: true, leastLoadedInFlight: 1 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = affinityStep.run(c.tiers, ctx(c.affinity));
      assert.deepEqual(ids(out.tiers), ids(c.expect));
      assert.deepEqual(out.record, c.record);
    });
  }

  it('records whether the remembered queue depth was reported or the assumed load of a silent peer', () => {
    const silent: Candidate = { ...peer(CORE1, 2), loadReported: false };
    const out = affinityStep.run([[silent, peer(CORE2, 0)]], ctx(remembering(CORE1, null)));
    assert.deepEqual([out.record?.outcome, out.record?.inFlight, out.record?.loadReported], ['hit', 2, false]);
  });

  it('a pin still wins over affinity (it runs after, inside the same tier): the row reads skipped, qualified', () => {
    const ranked = [local('ollama'), peer(CORE1), peer(CORE2)];
    const placed = place(
      ranked,
      placementContext({ model: 'qwen3:8b', pins: [{ scope: 'default', model: null, target: CORE2 }], affinity: remembering(CORE1, null) }),
      [affinityStep, pinStep],
    );
    assert.deepEqual(
      placed.order.map((c) => c.id),
      [`${CORE2}/pool`, `${CORE1}/pool`, 'local/ollama'],
    );
    const final = affinityOutcome(placed.records.affinity!, placed.order, { node: CORE1, backendId: null });
    assert.equal(final.outcome, 'skipped');
    assert.equal(final.qualified, true);
  });

  describe('affinityOutcome: the outcome for the order the walk will take', () => {
    const at: AffinityPlacement = { node: CORE1, backendId: null };
    const recorded = (outcome: AffinityRecord['outcome']): AffinityRecord => ({
      ...base,
      outcome,
      qualified: outcome !== 'miss',
      remembered: CORE1,
      inFlight: outcome === 'miss' ? null : 0,
      loadReported: true,
      leastLoadedInFlight: outcome === 'miss' ? null : 0,
    });
    const rows: readonly {
      name: string;
      record: AffinityRecord;
      order: Candidate[];
      remembered: AffinityPlacement | null;
      outcome: AffinityRecord['outcome'];
    }[] = [
      { name: 'a miss stays a miss whatever goes first', record: recorded('miss'), order: [peer(CORE1)], remembered: at, outcome: 'miss' },
      { name: 'nothing remembered: the record stands', record: recorded('skipped'), order: [peer(CORE1)], remembered: null, outcome: 'skipped' },
      {
        name: 'the remembered candidate first after later steps: hit',
        record: recorded('skipped'),
        order: [peer(CORE1), peer(CORE2)],
        remembered: at,
        outcome: 'hit',
      },
      {
        name: 'another candidate first after later steps: skipped',
        record: recorded('hit'),
        order: [peer(CORE2), peer(CORE1)],
        remembered: at,
        outcome: 'skipped',
      },
      {
        name: 'the same node on another engine is not the remembered one',
        record: recorded('hit'),
        order: [local('vllm'), local('ollama')],
        remembered: { node: 'local', backendId: 'ollama' },
        outcome: 'skipped',
      },
      { name: 'an empty order: skipped', record: recorded('hit'), order: [], remembered: at, outcome: 'skipped' },
    ];
    for (const r of rows) {
      it(r.name, () => {
        const out = affinityOutcome(r.record, r.order, r.remembered);
        assert.deepEqual(out, { ...r.record, outcome: r.outcome });
      });
    }
  });

  it('affinityHeldId names the candidate affinity qualified, and nothing when it stood aside', () => {
    assert.equal(affinityHeldId([[local('ollama'), peer(CORE1)]], remembering(CORE1, null)), `${CORE1}/pool`);
    assert.equal(affinityHeldId([[local('ollama'), peer(CORE1, 5)]], remembering(CORE1, null)), null);
    assert.equal(affinityHeldId([[local('ollama')]], null), null);
  });
});
