import { describe, it } from 'node:test';
import type { EngineKind } from '../../engines/engine-kind.js';
import assert from 'node:assert/strict';
import type { BusyWith, ContentionRecord } from '../../routing-log/placement-records.js';
import type { Tiers } from '../types.js';
import { localEngine, peerNode, tierIds } from './candidate-fixtures.js';
import { contentionStep, unjoinable, type ContentionInput } from './contention.js';
import { placementContext } from '../context.fixture.js';

const MODEL = 'qwen3.6:35b';
const L = localEngine('ollama', 3);
const L0 = localEngine('ollama', 0);
const P0 = peerNode('core-2', 0);
const P3 = peerNode('core-2', 3);
const Q3 = peerNode('beta-1', 3);
const Q4 = peerNode('beta-1', 4);
const OPENCLAW: BusyWith = { model: 'qwen3.8:27b', numCtx: 32768 };

function input(busy: readonly BusyWith[], over: Partial<ContentionInput> = {}): ContentionInput {
  return { numCtx: 65536, busy: new Map([['ollama', busy]]), runsAt: new Map([['ollama', 65536]]), affinityHeld: null, pressureWeight: 0, ...over };
}

describe('contentionStep (spec, "Local engine contention")', () => {
  const rows: readonly { name: string; tiers: Tiers; input?: ContentionInput; expect: Tiers; record: ContentionRecord | null }[] = [
    { name: 'HUB_POOL_CONTENTION_PLACEMENT=off (no input): nothing moves, record null', tiers: [[L, P3]], expect: [[L, P3]], record: null },
    { name: 'no generation in flight: nothing moves, record null', tiers: [[L, P3]], input: input([]), expect: [[L, P3]], record: null },
    {
      name: 'the same model at the same window can be joined: nothing moves, record null',
      tiers: [[L, P3]],
      input: input([{ model: MODEL, numCtx: 65536 }]),
      expect: [[L, P3]],
      record: null,
    },
    {
      name: "the beta-max wait: another model generating moves local behind a peer as busy (3 here against core-2's 3)",
      tiers: [[L, P3]],
      input: input([OPENCLAW]),
      expect: [[P3], [L]],
      record: {
        numCtx: 65536,
        demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [OPENCLAW], runsAt: 65536, behind: [P3.node], overriddenBy: null }],
        overridden: false,
      },
    },
    {
      name: 'the same model at another window cannot be joined (num_ctx is a load parameter)',
      tiers: [[L, P0]],
      input: input([{ model: MODEL, numCtx: 32768 }]),
      expect: [[P0], [L]],
      record: {
        numCtx: 65536,
        demoted: [
          {
            node: 'local',
            backend: 'ollama',
            backendId: 'ollama',
            busyWith: [{ model: MODEL, numCtx: 32768 }],
            runsAt: 65536,
            behind: [P0.node],
            overriddenBy: null,
          },
        ],
        overridden: false,
      },
    },
    {
      name: 'no window named and no default stated: two such requests match each other',
      tiers: [[L, P0]],
      input: input([{ model: MODEL, numCtx: null }], { numCtx: null, runsAt: new Map([['ollama', null]]) }),
      expect: [[L, P0]],
      record: null,
    },
    {
      name: 'no window named does not match one that names a number',
      tiers: [[L, P0]],
      input: input([{ model: MODEL, numCtx: 8192 }], { numCtx: null, runsAt: new Map([['ollama', null]]) }),
      expect: [[P0], [L]],
      record: {
        numCtx: null,
        demoted: [
          {
            node: 'local',
            backend: 'ollama',
            backendId: 'ollama',
            busyWith: [{ model: MODEL, numCtx: 8192 }],
            runsAt: null,
            behind: [P0.node],
            overriddenBy: null,
          },
        ],
        overridden: false,
      },
    },
    {
      name: 'it stops at the first busier candidate: behind a tie, ahead of a node with more in flight, in a group of its own with the rest',
      tiers: [[L, Q3, peerNode('core-9', 4), peerNode('core-7', 0)]],
      input: input([OPENCLAW]),
      expect: [[Q3], [L, peerNode('core-9', 4), peerNode('core-7', 0)]],
      record: {
        numCtx: 65536,
        demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [OPENCLAW], runsAt: 65536, behind: [Q3.node], overriddenBy: null }],
        overridden: false,
      },
    },
    {
      name: 'every node after it is busier: it keeps its place, and the record says so with behind empty',
      tiers: [[L, Q4]],
      input: input([OPENCLAW]),
      expect: [[L, Q4]],
      record: {
        numCtx: 65536,
        demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [OPENCLAW], runsAt: 65536, behind: [], overriddenBy: null }],
        overridden: false,
      },
    },
    {
      name: 'affinity holds the engine its session is warm on: it keeps the place it would have given up, overriddenBy affinity',
      tiers: [[L0, P0]],
      input: input([OPENCLAW], { affinityHeld: L0.id }),
      expect: [[L0, P0]],
      record: {
        numCtx: 65536,
        demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [OPENCLAW], runsAt: 65536, behind: [], overriddenBy: 'affinity' }],
        overridden: false,
      },
    },
    {
      name: 'affinity holds an engine that every node after it is busier than: it kept its place on its own, overriddenBy null',
      tiers: [[L, Q4]],
      input: input([OPENCLAW], { affinityHeld: L.id }),
      expect: [[L, Q4]],
      record: {
        numCtx: 65536,
        demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [OPENCLAW], runsAt: 65536, behind: [], overriddenBy: null }],
        overridden: false,
      },
    },
    {
      name: 'a move inside a later group splits only that group',
      tiers: [[P0], [L, Q3, Q4]],
      input: input([OPENCLAW]),
      expect: [[P0], [Q3], [L, Q4]],
      record: {
        numCtx: 65536,
        demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [OPENCLAW], runsAt: 65536, behind: [Q3.node], overriddenBy: null }],
        overridden: false,
      },
    },
    {
      name: 'within its group only: it never moves into a later group',
      tiers: [[L], [P0]],
      input: input([OPENCLAW]),
      expect: [[L], [P0]],
      record: {
        numCtx: 65536,
        demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [OPENCLAW], runsAt: 65536, behind: [], overriddenBy: null }],
        overridden: false,
      },
    },
    { name: 'no peer can take the request: nothing to give way to, record null', tiers: [[L]], input: input([OPENCLAW]), expect: [[L]], record: null },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const out = contentionStep.run(row.tiers, placementContext({ model: MODEL, pins: [], ...(row.input ? { contention: row.input } : {}) }));
      assert.deepEqual(tierIds(out.tiers), tierIds(row.expect));
      assert.deepEqual(out.record, row.record);
    });
  }
});

describe('contentionStep: the load it compares and the facts it looks up', () => {
  const demotedBehind = (behind: string[], over: Partial<ContentionRecord['demoted'][number]> = {}): ContentionRecord => ({
    numCtx: 65536,
    demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [OPENCLAW], runsAt: 65536, behind, overriddenBy: null, ...over }],
    overridden: false,
  });
  // Local at 3 in flight, pressure 1; a peer at 3 in flight whose GPU pressure is 2.
  const pressed = { ...peerNode('core-2', 3), pressure: 2 };
  const rows: readonly { name: string; tiers: Tiers; input: ContentionInput; expect: Tiers; record: ContentionRecord | null }[] = [
    {
      name: 'pressure weight 0: a peer as busy by queue is no busier, whatever its pressure',
      tiers: [[L, pressed]],
      input: input([OPENCLAW]),
      expect: [[pressed], [L]],
      record: demotedBehind([pressed.node]),
    },
    {
      name: 'pressure weight above 0: the same peer under more pressure is busier, so local keeps its place',
      tiers: [[L, pressed]],
      input: input([OPENCLAW], { pressureWeight: 1 }),
      expect: [[L, pressed]],
      record: demotedBehind([]),
    },
    {
      name: 'pressure weight above 0: a peer under less pressure at the same queue is no busier',
      tiers: [[L, { ...P3, pressure: 0.5 }]],
      input: input([OPENCLAW], { pressureWeight: 1 }),
      expect: [[P3], [L]],
      record: demotedBehind([P3.node]),
    },
    {
      name: 'an engine with no window of its own runs at the window the request named: the same model there can be joined',
      tiers: [[L, P0]],
      input: input([{ model: MODEL, numCtx: 65536 }], { runsAt: new Map() }),
      expect: [[L, P0]],
      record: null,
    },
    {
      name: 'an engine that runs a model at one window (listed at null) can be joined by a request that names num_ctx',
      tiers: [[localEngine('llama', 0, 'llamacpp'), P0]],
      input: input([{ model: MODEL, numCtx: null }], { busy: new Map([['llama', [{ model: MODEL, numCtx: null }]]]), runsAt: new Map([['llama', null]]) }),
      expect: [[localEngine('llama', 0, 'llamacpp'), P0]],
      record: null,
    },
    {
      name: 'an engine with nothing in flight listed is not contended',
      tiers: [[L, P0]],
      input: input([], { busy: new Map() }),
      expect: [[L, P0]],
      record: null,
    },
    {
      name: 'only the contended engine of two gives way, from where it stands',
      tiers: [[localEngine('ollama', 0), localEngine('llama', 0, 'llamacpp'), P0]],
      input: input([OPENCLAW], { busy: new Map([['llama', [OPENCLAW]]]), runsAt: new Map([['llama', 65536]]) }),
      expect: [[localEngine('ollama', 0), P0], [localEngine('llama', 0, 'llamacpp')]],
      record: demotedBehind([P0.node], { backend: 'llamacpp', backendId: 'llama' }),
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const out = contentionStep.run(row.tiers, placementContext({ model: MODEL, pins: [], contention: row.input }));
      assert.deepEqual(tierIds(out.tiers), tierIds(row.expect));
      assert.deepEqual(out.record, row.record);
    });
  }
});

describe('unjoinable', () => {
  it('keeps another model generating at the very window this request runs at', () =>
    assert.deepEqual(unjoinable([{ model: 'qwen3.8:27b', numCtx: 65536 }], MODEL, 65536, 'ollama'), [{ model: 'qwen3.8:27b', numCtx: 65536 }]));
  it('keeps another model at any window and this model at another window, drops this model at this window', () =>
    assert.deepEqual(unjoinable([OPENCLAW, { model: MODEL, numCtx: 65536 }, { model: MODEL, numCtx: 32768 }], MODEL, 65536, 'ollama'), [
      OPENCLAW,
      { model: MODEL, numCtx: 32768 },
    ]));

  // One app asks for qwen3, another for qwen3:latest: on Ollama both run the one model.
  const spellings: readonly { kind: EngineKind; busy: string; asked: string; joinable: boolean }[] = [
    { kind: 'ollama', busy: 'qwen3:latest', asked: 'qwen3', joinable: true },
    { kind: 'ollama', busy: 'qwen3', asked: 'qwen3:latest', joinable: true },
    { kind: 'ollama', busy: 'qwen3:8b', asked: 'qwen3', joinable: false },
    { kind: 'vllm', busy: 'qwen3:latest', asked: 'qwen3', joinable: false },
  ];
  for (const c of spellings)
    it(`on ${c.kind}, a request for ${c.asked} ${c.joinable ? 'joins' : 'cannot join'} ${c.busy} at its window`, () =>
      assert.equal(unjoinable([{ model: c.busy, numCtx: 32768 }], c.asked, 32768, c.kind).length === 0, c.joinable));
});
