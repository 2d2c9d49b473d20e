import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SlotsRecord } from '../../routing-log/placement-records.js';
import type { Candidate, Tiers } from '../types.js';
import { localEngine, peerNode, tierIds } from './candidate-fixtures.js';
import { countsAsSlots, slotsStep } from './slots.js';
import { placementContext } from '../context.fixture.js';

const stated = (entries: readonly (readonly [Candidate, number])[]) => new Map(entries.map(([c, n]) => [c.id, n]));

const L2 = localEngine('ollama', 2);
const A0 = peerNode('core-2', 0);
const A4 = peerNode('core-2', 4);
const B1 = peerNode('beta-max', 1);
const B2 = peerNode('beta-max', 2);
const C0 = peerNode('core-3', 0);
const D1 = peerNode('core-4', 1);

describe('slotsStep (spec, "Slot-aware placement")', () => {
  const rows: readonly { name: string; tiers: Tiers; slots?: ReadonlyMap<string, number>; expect: Tiers; record: SlotsRecord | null }[] = [
    {
      name: 'poolSlotAwareness 0 (no input): the ranked order stands and the record is null',
      tiers: [[L2, A0]],
      expect: [[L2, A0]],
      record: null,
    },
    {
      name: 'no candidate stated a count: nothing moves and the record is null',
      tiers: [[L2, A0]],
      slots: new Map(),
      expect: [[L2, A0]],
      record: null,
    },
    {
      name: 'a candidate whose queue fills its slots goes behind one with a free slot (the B5 cell: 2 in flight on 2 slots)',
      tiers: [[B2, A0]],
      slots: stated([
        [B2, 2],
        [A0, 4],
      ]),
      expect: [[A0], [B2]],
      record: {
        demoted: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
        allFull: false,
        full: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
        overridden: false,
      },
    },
    {
      name: 'a stale peer is judged on the neutral assumed load, as the spec has it, and its entry says the figure was assumed',
      tiers: [[{ ...B2, loadReported: false }, A0]],
      slots: stated([
        [B2, 2],
        [A0, 4],
      ]),
      expect: [[A0], [{ ...B2, loadReported: false }]],
      record: {
        demoted: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: false, slots: 2 }],
        allFull: false,
        full: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: false, slots: 2 }],
        overridden: false,
      },
    },
    {
      name: 'a queue over its slots counts as full too',
      tiers: [[L2, A0]],
      slots: stated([
        [L2, 1],
        [A0, 1],
      ]),
      expect: [[A0], [L2]],
      record: {
        demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', inFlight: 2, loadReported: true, slots: 1 }],
        allFull: false,
        full: [{ node: 'local', backend: 'ollama', backendId: 'ollama', inFlight: 2, loadReported: true, slots: 1 }],
        overridden: false,
      },
    },
    {
      name: 'a queue under its slots is free and keeps its place',
      tiers: [[B1, A0]],
      slots: stated([
        [B1, 2],
        [A0, 4],
      ]),
      expect: [[B1, A0]],
      record: { demoted: [], allFull: false, full: [], overridden: false },
    },
    {
      name: 'unstated is neither full nor free: a full node does not go behind an unstated one alone',
      tiers: [[B2, C0]],
      slots: stated([[B2, 2]]),
      expect: [[B2, C0]],
      record: {
        demoted: [],
        allFull: true,
        full: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
        overridden: false,
      },
    },
    {
      name: 'unstated keeps its place among the free: only the full one moves, behind every free and unstated one',
      tiers: [[B2, C0, A0]],
      slots: stated([
        [B2, 2],
        [A0, 4],
      ]),
      expect: [[C0, A0], [B2]],
      record: {
        demoted: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
        allFull: false,
        full: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
        overridden: false,
      },
    },
    {
      name: 'all full means nothing moves',
      tiers: [[B2, A4]],
      slots: stated([
        [B2, 2],
        [A4, 4],
      ]),
      expect: [[B2, A4]],
      record: {
        demoted: [],
        allFull: true,
        full: [
          { node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 },
          { node: A4.node, backend: null, backendId: null, inFlight: 4, loadReported: true, slots: 4 },
        ],
        overridden: false,
      },
    },
    {
      name: 'judged within each group: a full node in the first group never moves behind a free one in a later group',
      tiers: [[B2], [A0]],
      slots: stated([
        [B2, 2],
        [A0, 4],
      ]),
      expect: [[B2], [A0]],
      record: {
        demoted: [],
        allFull: false,
        full: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
        overridden: false,
      },
    },
    {
      name: 'full candidates keep the ranker order among themselves behind the free ones',
      tiers: [[L2, B2, A0]],
      slots: stated([
        [L2, 2],
        [B2, 2],
        [A0, 4],
      ]),
      expect: [[A0], [L2, B2]],
      record: {
        demoted: [
          { node: 'local', backend: 'ollama', backendId: 'ollama', inFlight: 2, loadReported: true, slots: 2 },
          { node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 },
        ],
        allFull: false,
        full: [
          { node: 'local', backend: 'ollama', backendId: 'ollama', inFlight: 2, loadReported: true, slots: 2 },
          { node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 },
        ],
        overridden: false,
      },
    },
    {
      name: 'a later group with nothing full stays whole, behind the split of the first',
      tiers: [
        [B2, A0],
        [C0, D1],
      ],
      slots: stated([
        [B2, 2],
        [A0, 4],
        [D1, 2],
      ]),
      expect: [[A0], [B2], [C0, D1]],
      record: {
        demoted: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
        allFull: false,
        full: [{ node: B2.node, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
        overridden: false,
      },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const out = slotsStep.run(row.tiers, placementContext({ model: 'qwen3:8b', pins: [], ...(row.slots ? { slots: { stated: row.slots } } : {}) }));
      assert.deepEqual(tierIds(out.tiers), tierIds(row.expect));
      assert.deepEqual(out.record, row.record);
    });
  }
});

describe('countsAsSlots', () => {
  const rows = [
    { engine: 'ollama', counts: true },
    { engine: 'llamacpp', counts: true },
    { engine: 'vllm', counts: false },
    { engine: 'lemonade', counts: false },
    { engine: 'omlx', counts: false },
  ] as const;
  for (const row of rows) it(`${row.engine}: ${row.counts ? 'a slot count' : 'not a slot count'}`, () => assert.equal(countsAsSlots(row.engine), row.counts));
});
