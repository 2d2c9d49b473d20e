import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../config/settings-schema.js';
import { ThroughputBook } from '../placement/throughput/book.js';
import { localEngine, peerNode } from '../placement/steps/candidate-fixtures.js';
import type { UsablePeer } from '../placement/candidates.js';
import { ManualClock } from '../util/clock.js';
import { usablePeerFixture } from '../placement/usable-peer.fixture.js';
import { ROUTED_ROUTES } from './route-table.js';
import { placementInputs, type PlacementInputsArgs } from './placement-inputs.js';

const route = (path: string) => ROUTED_ROUTES.find((r) => r.path === path)!;
const MODEL = 'qwen3:8b';
const L = localEngine('ollama', 0);
const V = localEngine('vllm', 0, 'vllm');
const P = peerNode('core-2', 0);
const peer = (ollamaSlots: number | null, kind = 'ollama'): UsablePeer =>
  usablePeerFixture(P.node, [{ kind, models: [MODEL] }], { peerId: P.peerId!, origin: P.url, ollamaSlots, throughput: null, snapshotAtMs: 0 });

function args(over: Partial<PlacementInputsArgs> = {}): PlacementInputsArgs {
  return {
    route: route('/api/chat'),
    model: MODEL,
    candidates: [L, V, P],
    peers: [peer(4)],
    settings: { ...DEFAULT_SETTINGS, poolSlotAwareness: 1, inferenceOllamaSlots: 2 },
    env: { throughputPlacement: () => true, contentionPlacement: () => true, slowerPlacementRatio: () => 3, slowerPlacementFloorMs: () => 20_000 },
    estimatedTokens: 8000,
    budgetMs: 300_000,
    numCtx: 65536,
    defaultNumCtx: 32768,
    book: new ThroughputBook(new ManualClock()),
    busy: new Map(),
    withheld: () => false,
    affinityHeld: null,
    nowMs: 0,
    ...over,
  };
}

describe('placementInputs: which rules apply to a request', () => {
  it("slots read this node's statement for its Ollama only, and a peer's for a peer whose Ollama holds the model", () =>
    assert.deepEqual(
      [...placementInputs(args()).slots!.stated],
      [
        [L.id, 2],
        [P.id, 4],
      ],
    ));
  it('poolSlotAwareness 0: no slots input, so the step records null', () =>
    assert.equal(placementInputs(args({ settings: { ...DEFAULT_SETTINGS, inferenceOllamaSlots: 2 } })).slots, undefined));
  it('poolSlotAwareness 0: the much-slower rule still reads the stated slots for its one-request margin', () =>
    assert.deepEqual(
      [...placementInputs(args({ settings: { ...DEFAULT_SETTINGS, inferenceOllamaSlots: 2 } })).throughput!.statedSlots],
      [
        [L.id, 2],
        [P.id, 4],
      ],
    ));
  it('a peer whose only engine holding the model is vLLM states no slots for it', () =>
    assert.deepEqual([...placementInputs(args({ peers: [peer(4, 'vllm')] })).slots!.stated], [[L.id, 2]]));
  it('embeddings take a slot, so slots judge them; throughput and contention do not', () => {
    const inputs = placementInputs(args({ route: route('/api/embed') }));
    assert.notEqual(inputs.slots, undefined);
    assert.equal(inputs.throughput, undefined);
    assert.equal(inputs.contention, undefined);
  });
  it('HUB_POOL_THROUGHPUT_PLACEMENT=off: no throughput input', () =>
    assert.equal(placementInputs(args({ env: { ...args().env, throughputPlacement: () => false } })).throughput, undefined));
  it('HUB_POOL_CONTENTION_PLACEMENT=off: no contention input', () =>
    assert.equal(placementInputs(args({ env: { ...args().env, contentionPlacement: () => false } })).contention, undefined));
  it('throughput reads the hold contention reads, so an engine whose prefix was not shown warm holds no peer back', () => {
    for (const held of [null, L.id]) {
      const inputs = placementInputs(args({ affinityHeld: held }));
      assert.deepEqual([inputs.contention?.affinityHeld, inputs.throughput?.affinityHeld], [held, held]);
    }
  });
  it('under 4,096 estimated tokens throughput neither judges', () => assert.equal(placementInputs(args({ estimatedTokens: 4095 })).throughput, undefined));
  it('the slower-placement knobs are read per request', () => {
    const t = placementInputs(args({ env: { ...args().env, slowerPlacementRatio: () => 1000, slowerPlacementFloorMs: () => 0 } })).throughput!;
    assert.deepEqual([t.slowerRatio, t.slowerFloorMs], [1000, 0]);
  });
  it('a window is resolved as the engine runs it: Ollama the named num_ctx, else the stated default; other engines one window', () => {
    assert.deepEqual(
      [...placementInputs(args()).runsAt],
      [
        ['ollama', 65536],
        ['vllm', null],
      ],
    );
    assert.deepEqual(
      [...placementInputs(args({ numCtx: null })).runsAt],
      [
        ['ollama', 32768],
        ['vllm', null],
      ],
    );
  });
  it('the slower of observed and advertised is the prediction', () => {
    const book = new ThroughputBook(new ManualClock(1_000_000));
    book.record({ node: P.node, backendId: null, model: MODEL }, { promptTokens: 8000, tokensPerSec: 400, deadline: false });
    const advertised = {
      [MODEL]: { bands: [{ fromTokens: 4096, promptTokens: 8000, tokensPerSec: 40, deadline: false, ageMs: 0 }], decodeTokensPerSec: null },
    };
    const t = placementInputs(args({ book, peers: [{ ...peer(4), throughput: advertised, snapshotAtMs: 1_000_000 }], nowMs: 1_000_000 })).throughput!;
    assert.deepEqual([t.predictions.get(P.id)?.source, t.predictions.get(P.id)?.tokensPerSec], ['advertised', 40]);
  });
  it('names the book as the source when this node watched the peer be slower than it advertises', () => {
    const book = new ThroughputBook(new ManualClock(1_000_000));
    book.record({ node: P.node, backendId: null, model: MODEL }, { promptTokens: 8000, tokensPerSec: 40, deadline: false });
    const advertised = {
      [MODEL]: { bands: [{ fromTokens: 4096, promptTokens: 8000, tokensPerSec: 400, deadline: false, ageMs: 0 }], decodeTokensPerSec: null },
    };
    const t = placementInputs(args({ book, peers: [{ ...peer(4), throughput: advertised, snapshotAtMs: 1_000_000 }], nowMs: 1_000_000 })).throughput!;
    assert.deepEqual([t.predictions.get(P.id)?.source, t.predictions.get(P.id)?.tokensPerSec], ['observed', 40]);
  });
});

describe("placementInputs: a llama.cpp server's own slot count", () => {
  const C = localEngine('llamacpp', 0, 'llamacpp');
  const withLlama = (inferenceOllamaSlots: number | null, engineSlots: ReadonlyMap<string, number> | undefined) => [
    ...placementInputs(
      args({
        route: route('/v1/chat/completions'),
        candidates: [C, V],
        peers: [],
        settings: { ...DEFAULT_SETTINGS, poolSlotAwareness: 1, inferenceOllamaSlots },
        ...(engineSlots ? { engineSlots } : {}),
      }),
    ).slots!.stated,
  ];
  const rows: { name: string; operator: number | null; reported: ReadonlyMap<string, number> | undefined; stated: [string, number][] }[] = [
    {
      name: 'no statement: the /slots length the engine reported is its slot count',
      operator: null,
      reported: new Map([['llamacpp', 4]]),
      stated: [[C.id, 4]],
    },
    { name: "the operator's statement wins over the engine's report", operator: 2, reported: new Map([['llamacpp', 4]]), stated: [[C.id, 2]] },
    { name: 'neither: no slot count, the engine keeps its place', operator: null, reported: undefined, stated: [] },
    {
      name: 'a slot count reported for an engine whose concurrency is not slots (vLLM) is not read',
      operator: null,
      reported: new Map([['vllm', 8]]),
      stated: [],
    },
  ];
  for (const row of rows) it(row.name, () => assert.deepEqual(withLlama(row.operator, row.reported), row.stated));
});
