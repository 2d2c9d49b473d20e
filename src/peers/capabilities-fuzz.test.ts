/**
 * Generated hostile capability documents (issue 15, items 2 and 4): what a paired peer answers
 * on GET /capabilities is untrusted. Whatever it holds (negative, huge, fractional or
 * non-finite figures, the wrong types, keys that contradict each other, `__proto__` keys), the
 * reader returns without throwing and every figure it keeps is inside its stated range;
 * anything else reads as null (not reported), never as zero. Fed on into placement (usable
 * peers, candidates, the ranker and every placement step), such a peer cannot make placement
 * throw, drop or duplicate a candidate, carry a non-finite load, or become a candidate for a
 * model it did not list in an engine that speaks the request's dialect.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fuzzRuns } from '../../test/helpers/fuzz-runs.js';
import { parseJsonOrUndefined } from '../util/bounded-read.js';
import { localCandidates, peerCandidates } from '../placement/candidates.js';
import { placementContext } from '../placement/context.fixture.js';
import { place } from '../placement/pipeline.js';
import { rankCandidates } from '../placement/rank.js';
import type { BackendView } from '../engines/types.js';
import {
  GPU_PRESSURE_RANGE,
  MAX_NUM_CTX,
  MAX_PEER_MODELS_PER_ENGINE,
  MAX_PEER_MODELS_TOTAL,
  MAX_UNSERVABLE_MODELS,
  OLLAMA_SLOTS_RANGE,
  PROMPT_CEILING_RANGE,
  readCapabilities,
  type PeerCapabilities,
} from './capabilities.js';
import type { PeerHealth } from './health-poller.js';
import { MAX_ADVERTISED_BANDS, MAX_ADVERTISED_MODELS } from './throughput-advert.js';
import { usablePeers } from './usable-peers.js';
import { backendViewFixture } from '../engines/backend-view.fixture.js';

/** Pure: a few hundred documents per property take about a second. */
const BOUNDED_RUNS = 200;
const MODEL = 'qwen3:8b';
const PEER = 'hub-b.tail0.ts.net';
const NOW_MS = Date.parse('2026-11-30T12:00:00Z');

/** Figures a hostile peer might state: out of range either way, fractional, non-finite (as JSON carries them: strings, or null), wrong types. */
const oddNumber = fc.oneof(
  fc.constantFrom(-1, -0, 0, 1, 3, 4, 0.5, 1.5, -1e308, 1e308, 2 ** 53, 2 ** 53 + 2, 1_000_000, 1_000_001, 1023, 1024, 1_048_576, 1_048_577, 256, 257),
  fc.integer({ min: -10, max: 2_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const oddValue = fc.oneof(
  oddNumber,
  fc.constantFrom(null, true, false, '', '3', 'NaN', 'Infinity', '-Infinity', '1e400', [], {}, [1], { value: 1 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.jsonValue({ maxDepth: 2 }),
);
const oddName = fc.oneof(
  fc.constantFrom(MODEL, 'llama3:70b', '__proto__', 'constructor', '', 'x'.repeat(256), 'x'.repeat(257)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  oddValue,
);
const oddKind = fc.oneof(fc.constantFrom('ollama', 'vllm', 'llamacpp', 'lemonade', 'omlx', 'OLLAMA', 'pool', '__proto__', 'x'.repeat(100)), oddValue);
const backend = fc.oneof(
  oddValue,
  fc.record(
    { kind: oddKind, models: fc.oneof(fc.array(oddName, { maxLength: 8 }), oddValue), unservable: fc.oneof(fc.array(oddName, { maxLength: 8 }), oddValue) },
    { requiredKeys: [] },
  ),
  // A few inventories at and past the per-engine bound.
  fc
    .constantFrom(MAX_PEER_MODELS_PER_ENGINE, MAX_PEER_MODELS_PER_ENGINE + 1)
    .map((n) => ({ kind: 'ollama', models: Array.from({ length: n }, (_, i) => `m${i}`) })),
);
const band = fc.record({ fromTokens: oddNumber, promptTokens: oddNumber, tokensPerSec: oddNumber, deadline: oddValue, ageMs: oddNumber }, { requiredKeys: [] });
const throughput = fc.oneof(
  oddValue,
  fc.dictionary(
    oddName.filter((n): n is string => typeof n === 'string'),
    fc.record({ bands: fc.oneof(fc.array(band, { maxLength: 20 }), oddValue), decodeTokensPerSec: oddValue }),
    {
      maxKeys: 3,
    },
  ),
);
const containers = fc.oneof(
  oddValue,
  fc.record({ running: oddNumber, stopped: oddNumber, total: oddNumber, cpuPercent: oddNumber, memoryBytes: oddNumber }, { requiredKeys: [] }),
);
const document = fc.oneof(
  oddValue,
  fc.record(
    {
      nodeUuid: oddValue,
      hardwareTier: fc.oneof(fc.constantFrom('high-end', 'mid-range', 'cpu-only', 'insufficient', 'ultra', '__proto__'), oddValue),
      backends: fc.oneof(fc.array(backend, { maxLength: 20 }), oddValue),
      inFlightRequests: oddValue,
      acceptingWork: fc.oneof(fc.constantFrom(true, 'true', 1), oddValue),
      gpuPressure: oddValue,
      maxPromptTokens: oddValue,
      maxNumCtx: oddValue,
      ollamaSlots: oddValue,
      containers,
      unservableModels: fc.oneof(fc.array(oddName, { maxLength: 5 }), oddValue),
      modelDetails: fc.oneof(
        fc.dictionary(fc.string({ maxLength: 12 }), fc.record({ parameterSize: oddValue, capabilities: oddValue }, { requiredKeys: [] }), { maxKeys: 4 }),
        oddValue,
      ),
      throughput,
      __proto__: fc.record({ acceptingWork: fc.constant(true), inFlightRequests: fc.constant(-5) }),
    },
    { requiredKeys: [] },
  ),
);
/** The document as the poller reads it: JSON text parsed again, so `__proto__` is an own key and non-finite numbers are gone (as on the wire). */
const wire = (value: unknown): unknown => parseJsonOrUndefined(Buffer.from(JSON.stringify(value) ?? 'null'));

const intIn = (v: number | null, min: number, max: number, what: string) =>
  assert.ok(v === null || (Number.isSafeInteger(v) && v >= min && v <= max), `${what} ${v} outside ${min}-${max}`);

/** Every number anywhere in the value is finite. */
function assertAllFinite(value: unknown, path: string): void {
  if (typeof value === 'number') assert.ok(Number.isFinite(value), `${path} is ${value}`);
  else if (value instanceof Map) for (const [k, v] of value) assertAllFinite(v, `${path}[${String(k)}]`);
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) assertAllFinite(v, `${path}.${k}`);
}

function assertInRange(caps: PeerCapabilities): void {
  assertAllFinite(caps, 'capabilities');
  assert.equal(typeof caps.acceptingWork, 'boolean');
  intIn(caps.inFlightRequests, 0, 1_000_000, 'inFlightRequests');
  intIn(caps.gpuPressure, GPU_PRESSURE_RANGE.min, GPU_PRESSURE_RANGE.max, 'gpuPressure');
  intIn(caps.maxPromptTokens, PROMPT_CEILING_RANGE.min, PROMPT_CEILING_RANGE.max, 'maxPromptTokens');
  intIn(caps.maxNumCtx, 1, MAX_NUM_CTX, 'maxNumCtx');
  intIn(caps.ollamaSlots, OLLAMA_SLOTS_RANGE.min, OLLAMA_SLOTS_RANGE.max, 'ollamaSlots');
  assert.ok(caps.hardwareTier === null || ['high-end', 'mid-range', 'cpu-only', 'insufficient'].includes(caps.hardwareTier));
  assert.ok(caps.nodeUuid === null || typeof caps.nodeUuid === 'string');
  let total = 0;
  for (const b of caps.backends) {
    assert.ok(typeof b.kind === 'string' && b.kind.length <= 32);
    assert.ok(b.models.length <= MAX_PEER_MODELS_PER_ENGINE);
    for (const m of b.models) assert.ok(typeof m === 'string' && m.length >= 1 && m.length <= 256);
    total += b.models.length;
  }
  assert.ok(total <= MAX_PEER_MODELS_TOTAL, `${total} models in all`);
  // What each engine serves is what it lists, less what it withholds: never a name it does not list.
  assert.equal(caps.servable.length, caps.backends.length);
  caps.servable.forEach((s, i) => {
    assert.equal(s.kind, caps.backends[i]!.kind);
    for (const m of s.models) assert.ok(caps.backends[i]!.models.includes(m), `${m} served but not listed`);
  });
  if (caps.containers !== null) {
    const c = caps.containers;
    for (const n of [c.running, c.stopped, c.total]) intIn(n, 0, Number.MAX_SAFE_INTEGER, 'container count');
    assert.ok(c.running <= c.total && c.stopped === c.total - c.running, 'counts agree');
    assert.ok(c.cpuPercent >= 0 && c.memoryBytes >= 0);
    assert.ok(c.running > 0 || (c.cpuPercent === 0 && c.memoryBytes === 0), 'no use without a running container');
  }
  assert.ok(
    caps.unservableModels === null || (caps.unservableModels.length <= MAX_UNSERVABLE_MODELS && caps.unservableModels.every((m) => typeof m === 'string')),
  );
  if (caps.modelDetails !== null) assert.ok(caps.modelDetails.size <= MAX_PEER_MODELS_PER_ENGINE);
  if (caps.throughput !== null) {
    const models = Object.entries(caps.throughput);
    assert.ok(models.length <= MAX_ADVERTISED_MODELS);
    for (const [, advert] of models) {
      assert.ok(advert.bands.length <= MAX_ADVERTISED_BANDS);
      for (const b of advert.bands) assert.ok(b.tokensPerSec > 0 && b.ageMs >= 0 && b.promptTokens >= b.fromTokens);
      assert.ok(advert.decodeTokensPerSec === null || advert.decodeTokensPerSec > 0);
    }
  }
}

const localEngine: BackendView = backendViewFixture([], {
  backendId: 'ollama-1',
  models: [{ name: MODEL, parameterSize: '8B', capabilities: ['completion'], sizeBytes: 5e9 }],
});

describe('a hostile peer capabilities document, generated', () => {
  it('reads as null when it is not an object, and otherwise keeps only in-range figures', () => {
    fc.assert(
      fc.property(document, (doc) => {
        const parsed = wire(doc);
        const caps = readCapabilities(parsed);
        const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
        assert.equal(caps === null, !isObject);
        if (caps !== null) assertInRange(caps);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('cannot make placement throw, lose a candidate, carry a non-finite load, or place a model it did not list', () => {
    fc.assert(
      fc.property(
        document,
        fc.constantFrom('openai', 'ollama') as fc.Arbitrary<'openai' | 'ollama'>,
        fc.integer({ min: 0, max: 5 }),
        (doc, dialect, forwarded) => {
          const caps = readCapabilities(wire(doc));
          if (caps === null) return;
          const health: PeerHealth = {
            probeFailure: null,
            probeFailureSince: null,
            probeFailureGap: null,
            capabilities: caps,
            capabilitiesAtMs: NOW_MS,
            forwardedAtSnapshot: 0,
            leftAt: null,
          };
          const peers = usablePeers({
            store: { list: () => [{ id: 'p1', nodeFqdn: PEER, status: 'connected', enabled: true }] },
            health: () => health,
            forwarded: () => forwarded,
            origins: new Map(),
            nowMs: NOW_MS,
            pollSeconds: 30,
          });
          // Only a peer that said acceptingWork: true (the boolean) is usable at all.
          assert.equal(peers.length, caps.acceptingWork ? 1 : 0);
          const local = localCandidates([localEngine], MODEL, dialect, () => 0);
          const remote = peerCandidates(peers, MODEL, dialect);
          const listed = caps.backends.some((b) => ['ollama', 'vllm', 'llamacpp', 'lemonade', 'omlx'].includes(b.kind) && b.models.includes(MODEL));
          if (remote.length > 0) {
            assert.ok(listed, 'a candidate only for a model it listed in a known engine');
            assert.ok(!(caps.unservableModels ?? []).includes(MODEL), 'never for a model it says it cannot serve');
          }
          for (const c of remote) {
            assert.ok(Number.isFinite(c.queueDepth) && c.queueDepth >= 0, `queue depth ${c.queueDepth}`);
            assert.ok(Number.isFinite(c.pressure) && c.pressure >= 0 && c.pressure <= 3, `pressure ${c.pressure}`);
          }
          const ranked = rankCandidates([...local, ...remote], { localAffinity: 1, pressureWeight: 1 });
          const limits = new Map([[PEER, { maxPromptTokens: peers[0]?.maxPromptTokens ?? null, maxNumCtx: peers[0]?.maxNumCtx ?? null }]]);
          const placement = place(ranked, placementContext({ model: MODEL, limits, nowMs: NOW_MS }));
          assert.deepEqual(placement.order.map((c) => c.id).sort(), ranked.map((c) => c.id).sort(), 'every candidate once, none added');
        },
      ),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });
});
