import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BackendView } from '../engines/types.js';
import { peerRowFixture } from '../store/peer-row.fixture.js';
import type { PeerRow } from '../store/peers.js';
import type { PeerHealth } from './health-poller.js';
import {
  MAX_PEER_MODELS_PER_ENGINE,
  MAX_PEER_MODELS_TOTAL,
  publishCapabilities,
  readCapabilities,
  readModelDetails,
  type ContainerRollup,
  type PeerCapabilities,
  type PublishInputs,
} from './capabilities.js';

/** A minimal document an up-to-date peer sends, before any optional key. */
const BASE = { nodeUuid: 'u-1', hardwareTier: null, backends: [{ kind: 'ollama', models: ['qwen3:8b'] }], inFlightRequests: 2, acceptingWork: true };
const CONTAINERS: ContainerRollup = { running: 6, stopped: 2, total: 8, cpuPercent: 91.25, memoryBytes: 5_368_709_120 };

function read(extra: Record<string, unknown>): PeerCapabilities {
  const caps = readCapabilities({ ...BASE, ...extra });
  assert.ok(caps !== null);
  return caps;
}

type OptionalKey = 'maxPromptTokens' | 'maxNumCtx' | 'ollamaSlots' | 'gpuPressure' | 'containers' | 'unservableModels' | 'throughput';
const OPTIONAL_KEYS: readonly OptionalKey[] = ['maxPromptTokens', 'maxNumCtx', 'ollamaSlots', 'gpuPressure', 'containers', 'unservableModels', 'throughput'];

describe('readCapabilities: each optional key, valid and invalid', () => {
  const cases: readonly { key: OptionalKey; sent: unknown; reads: unknown }[] = [
    // maxPromptTokens: a whole number within the range the setting itself allows.
    { key: 'maxPromptTokens', sent: 16_000, reads: 16_000 },
    { key: 'maxPromptTokens', sent: 1024, reads: 1024 },
    { key: 'maxPromptTokens', sent: 1_048_576, reads: 1_048_576 },
    { key: 'maxPromptTokens', sent: 1023, reads: null },
    { key: 'maxPromptTokens', sent: 1_048_577, reads: null },
    { key: 'maxPromptTokens', sent: 0, reads: null },
    { key: 'maxPromptTokens', sent: 16_000.5, reads: null },
    { key: 'maxPromptTokens', sent: '16000', reads: null },
    { key: 'maxPromptTokens', sent: null, reads: null },
    // maxNumCtx: positive, whole, at most ten million.
    { key: 'maxNumCtx', sent: 32_768, reads: 32_768 },
    { key: 'maxNumCtx', sent: 1, reads: 1 },
    { key: 'maxNumCtx', sent: 10_000_000, reads: 10_000_000 },
    { key: 'maxNumCtx', sent: 10_000_001, reads: null },
    { key: 'maxNumCtx', sent: 0, reads: null },
    { key: 'maxNumCtx', sent: -4096, reads: null },
    { key: 'maxNumCtx', sent: Infinity, reads: null },
    { key: 'maxNumCtx', sent: [4096], reads: null },
    // ollamaSlots: 1 to 256.
    { key: 'ollamaSlots', sent: 4, reads: 4 },
    { key: 'ollamaSlots', sent: 1, reads: 1 },
    { key: 'ollamaSlots', sent: 256, reads: 256 },
    { key: 'ollamaSlots', sent: 0, reads: null },
    { key: 'ollamaSlots', sent: 257, reads: null },
    { key: 'ollamaSlots', sent: 2.5, reads: null },
    { key: 'ollamaSlots', sent: true, reads: null },
    // gpuPressure: the 0-3 band, where a real 0 is kept.
    { key: 'gpuPressure', sent: 0, reads: 0 },
    { key: 'gpuPressure', sent: 3, reads: 3 },
    { key: 'gpuPressure', sent: 4, reads: null },
    { key: 'gpuPressure', sent: -1, reads: null },
    { key: 'gpuPressure', sent: 1.5, reads: null },
    { key: 'gpuPressure', sent: '0', reads: null },
    { key: 'gpuPressure', sent: NaN, reads: null },
    // containers: the whole rollup or nothing.
    { key: 'containers', sent: CONTAINERS, reads: CONTAINERS },
    {
      key: 'containers',
      sent: { running: 0, stopped: 0, total: 0, cpuPercent: 0, memoryBytes: 0 },
      reads: { running: 0, stopped: 0, total: 0, cpuPercent: 0, memoryBytes: 0 },
    },
    { key: 'containers', sent: { ...CONTAINERS, names: ['db'] }, reads: CONTAINERS },
    { key: 'containers', sent: [CONTAINERS], reads: null },
    { key: 'containers', sent: 'busy', reads: null },
    // unservableModels: a bounded list of model names.
    { key: 'unservableModels', sent: ['a:1b', 'org/b:7b'], reads: ['a:1b', 'org/b:7b'] },
    { key: 'unservableModels', sent: [], reads: [] },
    { key: 'unservableModels', sent: Array.from({ length: 2000 }, (_, i) => `m${i}`), reads: Array.from({ length: 2000 }, (_, i) => `m${i}`) },
    { key: 'unservableModels', sent: Array.from({ length: 2001 }, (_, i) => `m${i}`), reads: null },
    { key: 'unservableModels', sent: ['ok', 7], reads: null },
    { key: 'unservableModels', sent: ['ok', 'x'.repeat(257)], reads: null },
    { key: 'unservableModels', sent: ['ok', ''], reads: null },
    { key: 'unservableModels', sent: 'a:1b', reads: null },
    // throughput: parsed entry by entry (throughput-advert.ts); an advert with nothing readable reads as none.
    {
      key: 'throughput',
      sent: {
        'qwen3:8b': { bands: [{ fromTokens: 8192, promptTokens: 10_000, tokensPerSec: 480.5, deadline: false, ageMs: 60_000 }], decodeTokensPerSec: 42 },
      },
      reads: {
        'qwen3:8b': { bands: [{ fromTokens: 8192, promptTokens: 10_000, tokensPerSec: 480.5, deadline: false, ageMs: 60_000 }], decodeTokensPerSec: 42 },
      },
    },
    { key: 'throughput', sent: { 'qwen3:8b': { prefillTps: 900 } }, reads: null },
    {
      key: 'throughput',
      sent: { 'qwen3:8b': { bands: [{ fromTokens: 8192, promptTokens: 10_000, tokensPerSec: -1, deadline: false, ageMs: 0 }], decodeTokensPerSec: null } },
      reads: null,
    },
    {
      key: 'throughput',
      sent: { 'qwen3:8b': { bands: [{ fromTokens: 8192, promptTokens: 4096, tokensPerSec: 100, deadline: false, ageMs: 0 }], decodeTokensPerSec: null } },
      reads: null,
    },
    { key: 'throughput', sent: [1, 2], reads: null },
    { key: 'throughput', sent: 42, reads: null },
  ];
  for (const c of cases) {
    it(`${c.key}: ${describeValue(c.sent)} reads as ${describeValue(c.reads)}`, () => assert.deepEqual(read({ [c.key]: c.sent })[c.key], c.reads));
  }
});

describe('readCapabilities: nodeUuid', () => {
  const cases: readonly { sent: unknown; reads: string | null }[] = [
    { sent: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d', reads: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d' },
    // Kept for as long as the snapshot is, so nothing but a UUID is kept: not any length of text.
    { sent: 'x'.repeat(1 << 20), reads: null },
    { sent: '2F1C7A52-9D3E-4B8A-A0C1-5E6F7A8B9C0D', reads: null },
    { sent: 42, reads: null },
  ];
  for (const c of cases) it(`${describeValue(c.sent)} reads as ${describeValue(c.reads)}`, () => assert.equal(read({ nodeUuid: c.sent }).nodeUuid, c.reads));
});

describe('readCapabilities: one bad container field rejects the whole rollup', () => {
  const bad: readonly { name: string; change: Partial<Record<keyof ContainerRollup, unknown>> | { drop: keyof ContainerRollup } }[] = [
    { name: 'a negative running count', change: { running: -1, stopped: 9 } },
    { name: 'a fractional stopped count', change: { stopped: 2.5 } },
    { name: 'a count sent as a string', change: { total: '8' } },
    { name: 'more running than exist', change: { running: 9, stopped: -1 } },
    { name: 'stopped that is not total - running', change: { stopped: 3 } },
    { name: 'CPU in use with nothing running', change: { running: 0, stopped: 8, memoryBytes: 0 } },
    { name: 'memory in use with nothing running', change: { running: 0, stopped: 8, cpuPercent: 0 } },
    { name: 'negative cpu', change: { cpuPercent: -0.1 } },
    { name: 'cpu beyond 1024 cores', change: { cpuPercent: 102_401 } },
    { name: 'non-finite cpu', change: { cpuPercent: Infinity } },
    { name: 'NaN memory', change: { memoryBytes: NaN } },
    { name: 'memory beyond 2^53 bytes', change: { memoryBytes: 2 ** 53 + 4096 } },
    { name: 'memory as null', change: { memoryBytes: null } },
    { name: 'more containers than one Docker list holds', change: { running: 9_007_199_254_740_991, stopped: 0, total: 9_007_199_254_740_991 } },
    { name: 'a missing field', change: { drop: 'memoryBytes' } },
    // A missing count reads as null, and null counts as 0 in arithmetic: these still add up.
    { name: 'running missing, with stopped equal to total', change: { running: null, stopped: 8 } },
    { name: 'running sent as a string, with stopped equal to total', change: { running: '6', stopped: 8 } },
    { name: 'total missing, with nothing running or stopped', change: { running: 0, stopped: 0, total: null } },
  ];
  for (const c of bad) {
    it(`${c.name}: containers null, every other key kept`, () => {
      const sent: Record<string, unknown> = { ...CONTAINERS };
      if ('drop' in c.change) delete sent[c.change.drop as string];
      else Object.assign(sent, c.change);
      const caps = read({ containers: sent, gpuPressure: 2, maxPromptTokens: 16_000, ollamaSlots: 4, maxNumCtx: 8192, unservableModels: ['x'] });
      assert.equal(caps.containers, null);
      assert.deepEqual(
        {
          gpuPressure: caps.gpuPressure,
          maxPromptTokens: caps.maxPromptTokens,
          ollamaSlots: caps.ollamaSlots,
          maxNumCtx: caps.maxNumCtx,
          unservableModels: caps.unservableModels,
          inFlightRequests: caps.inFlightRequests,
        },
        { gpuPressure: 2, maxPromptTokens: 16_000, ollamaSlots: 4, maxNumCtx: 8192, unservableModels: ['x'], inFlightRequests: 2 },
      );
    });
  }

  it('a bad key elsewhere leaves a good rollup alone', () => {
    const caps = read({ containers: CONTAINERS, gpuPressure: 9, maxPromptTokens: -1, unservableModels: 'nope' });
    assert.deepEqual(caps.containers, CONTAINERS);
    assert.equal(caps.gpuPressure, null);
  });
});

describe('readCapabilities: absent is not zero', () => {
  it('an older peer that sends none of the optional keys reads null for every one of them', () => {
    const caps = read({});
    for (const key of OPTIONAL_KEYS) assert.equal(caps[key], null, key);
  });

  it('a rejected value never becomes 0', () => {
    const caps = read({ maxPromptTokens: 0, maxNumCtx: 0, ollamaSlots: 0, gpuPressure: -1, containers: { ...CONTAINERS, running: -6 } });
    for (const key of OPTIONAL_KEYS) assert.notEqual(caps[key], 0, key);
    assert.deepEqual(
      OPTIONAL_KEYS.map((k) => caps[k]),
      OPTIONAL_KEYS.map(() => null),
    );
  });

  it('a reported zero stays zero where zero is in range', () => {
    const caps = read({ gpuPressure: 0, containers: { running: 0, stopped: 0, total: 0, cpuPercent: 0, memoryBytes: 0 } });
    assert.equal(caps.gpuPressure, 0);
    assert.equal(caps.containers?.running, 0);
  });
});

describe('readCapabilities: a hostile document never throws', () => {
  const huge = Array.from({ length: 200_000 }, (_, i) => `m${i}`);
  const docs: readonly { name: string; doc: unknown }[] = [
    { name: 'null', doc: null },
    { name: 'an array', doc: [BASE] },
    { name: 'a string', doc: '{"nodeUuid":"x"}' },
    { name: 'a number', doc: 42 },
    { name: 'an empty object', doc: {} },
    {
      name: 'huge arrays everywhere',
      doc: { ...BASE, backends: Array.from({ length: 5000 }, () => ({ kind: 'ollama', models: huge })), unservableModels: huge },
    },
    {
      name: 'nested junk in every key',
      doc: {
        ...BASE,
        ...Object.fromEntries(OPTIONAL_KEYS.map((k) => [k, { a: [{ b: { c: null } }] }])),
        backends: [null, 3, 'x', [], { kind: 7, models: 'all' }, { kind: 'ollama', models: [null, {}, [], 5, 'ok'] }],
      },
    },
    {
      name: 'negative numbers everywhere',
      doc: {
        ...BASE,
        inFlightRequests: -1,
        gpuPressure: -3,
        maxPromptTokens: -2048,
        maxNumCtx: -1,
        ollamaSlots: -4,
        containers: { running: -1, stopped: -1, total: -2, cpuPercent: -5, memoryBytes: -1 },
      },
    },
    {
      name: 'NaN and Infinity as strings',
      doc: {
        ...BASE,
        inFlightRequests: 'NaN',
        gpuPressure: 'Infinity',
        maxPromptTokens: 'NaN',
        maxNumCtx: '1e400',
        ollamaSlots: '-Infinity',
        containers: { running: 'NaN', stopped: '0', total: '0', cpuPercent: 'Infinity', memoryBytes: '1e400' },
      },
    },
    { name: 'a __proto__ key from JSON', doc: JSON.parse('{"__proto__": {"acceptingWork": true}, "containers": {"__proto__": {"running": 1}}}') },
  ];
  for (const c of docs) {
    it(c.name, () => {
      const caps = readCapabilities(c.doc);
      if (caps === null) return;
      for (const key of ['inFlightRequests', 'gpuPressure', 'maxPromptTokens', 'maxNumCtx', 'ollamaSlots'] as const) {
        const value = caps[key];
        assert.ok(value === null || (Number.isInteger(value) && value >= 0), key);
      }
      assert.ok(caps.backends.length <= 16);
      for (const b of caps.backends) assert.ok(b.models.length <= MAX_PEER_MODELS_PER_ENGINE && b.models.every((m) => typeof m === 'string' && m.length > 0));
    });
  }

  it('huge arrays are bounded, not refused: the first engines and names are kept', () => {
    const caps = readCapabilities({ ...BASE, backends: Array.from({ length: 40 }, () => ({ kind: 'ollama', models: huge })), unservableModels: huge });
    assert.equal(caps?.backends.length, 16);
    assert.equal(caps?.backends[0]?.models.length, MAX_PEER_MODELS_PER_ENGINE);
    assert.equal(caps?.unservableModels, null);
  });

  it('a __proto__ key does not turn into acceptingWork', () => {
    assert.equal(readCapabilities(JSON.parse('{"__proto__": {"acceptingWork": true}}'))?.acceptingWork, false);
  });
});

describe('publishCapabilities', () => {
  const backend: BackendView = {
    backendId: 'ollama',
    kind: 'ollama',
    url: 'http://127.0.0.1:11434',
    running: true,
    healthy: true,
    models: [{ name: 'qwen3:8b', parameterSize: null, capabilities: null, sizeBytes: null }],
    error: null,
    probedMsAgo: 0,
  };
  const inputs = (extra: Partial<PublishInputs> = {}): PublishInputs => ({
    nodeUuid: 'u-1',
    backends: [backend],
    inFlightRequests: 3,
    acceptingWork: true,
    maxPromptTokens: null,
    ...extra,
  });
  const wire = (extra: Partial<PublishInputs> = {}) => JSON.parse(JSON.stringify(publishCapabilities(inputs(extra)))) as Record<string, unknown>;

  it('leaves every unmeasured key off the wire: no gpuPressure, containers or ceiling key at all', () => {
    const doc = wire();
    for (const key of ['gpuPressure', 'containers', 'maxPromptTokens', 'maxNumCtx', 'ollamaSlots', 'unservableModels', 'throughput'])
      assert.equal(key in doc, false, key);
  });

  it('leaves an unmeasured key out of the document itself, not only out of its JSON', () => {
    const doc = publishCapabilities(inputs({ gpuPressure: undefined, containers: undefined, maxNumCtx: null, throughput: undefined }));
    for (const key of ['gpuPressure', 'containers', 'maxPromptTokens', 'maxNumCtx', 'ollamaSlots', 'throughput']) assert.equal(key in doc, false, key);
  });

  it('explicit nulls from a sampler that has nothing are left off the wire too', () => {
    const doc = wire({ gpuPressure: null, containers: null, maxNumCtx: null, ollamaSlots: null });
    for (const key of ['gpuPressure', 'containers', 'maxNumCtx', 'ollamaSlots']) assert.equal(key in doc, false, key);
  });

  it('sends the ceiling when this node has one', () => assert.equal(wire({ maxPromptTokens: 16_000 }).maxPromptTokens, 16_000));

  it('sends measured keys as measured, a zero band included', () => {
    const doc = wire({ gpuPressure: 0, containers: CONTAINERS, ollamaSlots: 4, maxNumCtx: 32_768 });
    assert.deepEqual([doc.gpuPressure, doc.containers, doc.ollamaSlots, doc.maxNumCtx], [0, CONTAINERS, 4, 32_768]);
  });

  it('not taking work: an empty inventory, the real load, and containers still sent', () => {
    const doc = wire({ acceptingWork: false, containers: CONTAINERS });
    assert.deepEqual([doc.backends, doc.inFlightRequests, doc.acceptingWork, doc.containers], [[], 3, false, CONTAINERS]);
  });

  it('reads back as it was published', () => {
    const caps = readCapabilities(wire({ maxPromptTokens: 16_000, containers: CONTAINERS }));
    assert.equal(caps?.maxPromptTokens, 16_000);
    assert.deepEqual(caps?.containers, CONTAINERS);
    assert.equal(caps?.gpuPressure, null);
    assert.deepEqual(caps?.backends, [{ kind: 'ollama', models: ['qwen3:8b'] }]);
  });
});

function describeValue(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

describe('hardwareTier on the wire', () => {
  const inputs = (extra: Partial<PublishInputs> = {}): PublishInputs => ({
    nodeUuid: 'u-1',
    backends: [],
    inFlightRequests: 0,
    acceptingWork: true,
    maxPromptTokens: null,
    ...extra,
  });

  it('publishes the detected tier, and null while none is detected (never a guess)', () => {
    assert.equal(publishCapabilities(inputs({ hardwareTier: 'mid-range' })).hardwareTier, 'mid-range');
    assert.equal(publishCapabilities(inputs({ hardwareTier: null })).hardwareTier, null);
    assert.equal(publishCapabilities(inputs()).hardwareTier, null);
  });

  it('publishes the tier while not taking work, as the real figure', () => {
    assert.equal(publishCapabilities(inputs({ acceptingWork: false, hardwareTier: 'cpu-only' })).hardwareTier, 'cpu-only');
  });

  const rows: readonly { sent: unknown; reads: string | null }[] = [
    { sent: 'high-end', reads: 'high-end' },
    { sent: 'mid-range', reads: 'mid-range' },
    { sent: 'cpu-only', reads: 'cpu-only' },
    { sent: 'insufficient', reads: 'insufficient' },
    { sent: 'high', reads: null },
    { sent: 'HIGH-END', reads: null },
    { sent: '\u001b[31mhigh-end', reads: null },
    { sent: 3, reads: null },
    { sent: null, reads: null },
  ];
  for (const r of rows)
    it(`reads a peer's ${describeValue(r.sent)} as ${String(r.reads)}`, () => assert.equal(read({ hardwareTier: r.sent }).hardwareTier, r.reads));
});

describe('peerView: containers as status and GET /peers carry them', () => {
  const row = peerRowFixture();
  const health = (containers: unknown, capabilitiesAtMs = 0) => ({
    probeFailure: null,
    probeFailureSince: null,
    probeFailureGap: null,
    capabilities: read({ containers }),
    capabilitiesAtMs,
    forwardedAtSnapshot: 0,
    leftAt: null,
  });
  const ctx = (nowMs: number) => ({ selfName: null, pairing: { approvedThereAt: null, confirming: false }, nowMs, pollSeconds: 30 });

  it('carries a valid rollup, and null (not zeros) for a rejected one or none', async () => {
    const { peerView } = await import('./peer-view.js');
    assert.deepEqual(peerView(row, health(CONTAINERS), ctx(0)).containers, CONTAINERS);
    assert.equal(peerView(row, health({ ...CONTAINERS, running: 9 }), ctx(0)).containers, null);
    assert.equal(peerView(row, health(undefined), ctx(0)).containers, null);
    assert.equal(peerView(row, { ...health(undefined), capabilities: null }, ctx(0)).containers, null);
  });

  it('carries none from a snapshot older than three polls: the last counts of a peer gone quiet are not an idle machine', async () => {
    const { peerView } = await import('./peer-view.js');
    assert.deepEqual(peerView(row, health(CONTAINERS, 0), ctx(90_000)).containers, CONTAINERS);
    assert.equal(peerView(row, health(CONTAINERS, 0), ctx(90_001)).containers, null);
  });

  it("carries the peer's own in-flight count only from a snapshot within three polls: an old 0 is not an idle peer", async () => {
    const { peerView } = await import('./peer-view.js');
    const answered = { ...health(undefined, 0), capabilities: read({ inFlightRequests: 0 }) };
    assert.equal(peerView(row, answered, ctx(90_000)).inFlightRequests, 0);
    assert.equal(peerView(row, answered, ctx(90_001)).inFlightRequests, null);
  });
});

describe('readCapabilities: the figures every document carries', () => {
  const rows: readonly { key: 'nodeUuid' | 'inFlightRequests' | 'acceptingWork'; sent: unknown; reads: unknown }[] = [
    { key: 'nodeUuid', sent: '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7', reads: '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7' },
    { key: 'nodeUuid', sent: 42, reads: null },
    { key: 'nodeUuid', sent: undefined, reads: null },
    { key: 'inFlightRequests', sent: 0, reads: 0 },
    { key: 'inFlightRequests', sent: 1_000_000, reads: 1_000_000 },
    { key: 'inFlightRequests', sent: 1_000_001, reads: null },
    { key: 'inFlightRequests', sent: -1, reads: null },
    { key: 'inFlightRequests', sent: 2.5, reads: null },
    { key: 'acceptingWork', sent: true, reads: true },
    { key: 'acceptingWork', sent: false, reads: false },
    { key: 'acceptingWork', sent: 'true', reads: false },
    { key: 'acceptingWork', sent: 1, reads: false },
  ];
  for (const r of rows) {
    it(`${r.key}: ${describeValue(r.sent)} reads as ${describeValue(r.reads)}`, () => assert.deepEqual(read({ [r.key]: r.sent })[r.key], r.reads));
  }

  it('a model name of 256 characters is kept, in an engine and in the unservable list', () => {
    const name = 'm'.repeat(256);
    const caps = read({ backends: [{ kind: 'ollama', models: [name] }], unservableModels: [name] });
    assert.deepEqual(caps.backends, [{ kind: 'ollama', models: [name] }]);
    assert.deepEqual(caps.unservableModels, [name]);
  });

  it('a container rollup with every container running, and figures at their upper limits, is kept', () => {
    const full = { running: 8, stopped: 0, total: 8, cpuPercent: 102_400, memoryBytes: 2 ** 53 };
    assert.deepEqual(read({ containers: full }).containers, full);
  });
});

describe('readCapabilities: the engines a peer lists', () => {
  it("takes a model an engine names unservable off that engine's servable list only, keeping it on disk and on the others", () => {
    const caps = read({
      backends: [
        { kind: 'ollama', models: ['split:8b', 'other:1b'], unservable: ['split:8b'] },
        { kind: 'vllm', models: ['split:8b'] },
      ],
    });
    assert.deepEqual(caps.backends, [
      { kind: 'ollama', models: ['split:8b', 'other:1b'] },
      { kind: 'vllm', models: ['split:8b'] },
    ]);
    assert.deepEqual(caps.servable, [
      { kind: 'ollama', models: ['other:1b'] },
      { kind: 'vllm', models: ['split:8b'] },
    ]);
  });

  const ignored: readonly { name: string; unservable: unknown }[] = [
    { name: 'a name the engine does not list', unservable: ['elsewhere:1b'] },
    { name: 'a string', unservable: 'split:8b' },
    { name: 'entries that are not names', unservable: [null, 7, { name: 'split:8b' }] },
    { name: 'an empty list', unservable: [] },
  ];
  for (const c of ignored) {
    it(`reads ${c.name} in an engine's unservable list as nothing withheld`, () => {
      const caps = read({ backends: [{ kind: 'ollama', models: ['split:8b'], unservable: c.unservable }] });
      assert.equal(caps.servable, caps.backends, 'the same list, so nothing is copied per snapshot');
    });
  }

  it('reads an unservable list no longer than the models the engine lists', () => {
    const models = ['a:1b', 'b:1b'];
    const caps = read({ backends: [{ kind: 'ollama', models, unservable: ['x:1b', 'y:1b', 'a:1b'] }] });
    assert.deepEqual(caps.servable, [{ kind: 'ollama', models }], 'names past the second are not read');
  });

  it('skips a malformed engine entry or model name and keeps the rest, in order', () => {
    const caps = read({
      backends: [
        null,
        { kind: 7, models: ['a'] },
        { kind: 'vllm', models: 'a' },
        ['ollama', ['a']],
        { kind: 'ollama', models: ['a:1b', '', 3, null, 'x'.repeat(257), 'b:7b'] },
        { kind: 'vllm', models: [] },
      ],
    });
    assert.deepEqual(caps.backends, [
      { kind: 'ollama', models: ['a:1b', 'b:7b'] },
      { kind: 'vllm', models: [] },
    ]);
  });

  it('takes no name with a control character or an invisible direction mark as a model: not listed, described or called unservable', () => {
    const unprintable = ['evil\u001b]0;owned\u0007', 'clear\u001b[2J', 'nul\u0000', 'c1\u009b31m', 'rtl\u202eb:8', 'del\u007f'];
    const caps = read({
      backends: [{ kind: 'ollama', models: ['a:1b', ...unprintable] }],
      modelDetails: Object.fromEntries(['a:1b', ...unprintable].map((m) => [m, { parameterSize: '8B', capabilities: null }])),
      unservableModels: ['a:1b', unprintable[0]],
    });
    assert.deepEqual(caps.backends, [{ kind: 'ollama', models: ['a:1b'] }]);
    assert.deepEqual([...(caps.modelDetails?.keys() ?? [])], ['a:1b']);
    assert.equal(caps.unservableModels, null, 'a list with one name that is none is refused whole, as any malformed list');
  });

  it('cuts an engine kind to 32 characters', () => {
    assert.equal(read({ backends: [{ kind: 'k'.repeat(40), models: [] }] }).backends[0]?.kind, 'k'.repeat(32));
  });

  it('drops an engine whose kind holds a control character or an invisible direction mark, with its models, and keeps the rest', () => {
    const unprintable = ['oll\u001b[2Jama', 'bell\u0007', 'c1\u009b31m', 'rtl\u202evllm', 'del\u007f', 'k'.repeat(40) + '\u001b]0;owned\u0007'];
    const caps = read({ backends: [...unprintable.map((kind) => ({ kind, models: ['evil:1b'] })), { kind: 'ollama', models: ['a:1b'] }] });
    assert.deepEqual(caps.backends, [{ kind: 'ollama', models: ['a:1b'] }]);
  });

  it('drops an engine whose kind is empty', () => {
    assert.deepEqual(read({ backends: [{ kind: '', models: ['a:1b'] }] }).backends, []);
  });

  it('reads at most 4,000 model names across all engines: the engines past the bound read with none', () => {
    const names = (prefix: string) => Array.from({ length: MAX_PEER_MODELS_PER_ENGINE }, (_, i) => `${prefix}${i}`);
    const caps = read({
      backends: [
        { kind: 'ollama', models: names('a') },
        { kind: 'ollama', models: ['', ...names('b')] },
        { kind: 'vllm', models: ['c'] },
      ],
    });
    assert.deepEqual(
      caps.backends.map((b) => b.models.length),
      [MAX_PEER_MODELS_PER_ENGINE, MAX_PEER_MODELS_PER_ENGINE, 0],
    );
    assert.equal(MAX_PEER_MODELS_TOTAL, 2 * MAX_PEER_MODELS_PER_ENGINE);
  });
});

describe('readModelDetails', () => {
  it("reads each model's size and capabilities, and a malformed figure as not said (null)", () => {
    const details = readModelDetails({
      'qwen3:8b': { parameterSize: '8.2B', capabilities: ['completion', 'tools'] },
      'gemma:2b': { parameterSize: 2, capabilities: 'tools' },
      'long:1b': { parameterSize: 'x'.repeat(33), capabilities: ['x'.repeat(33)] },
      'edge:1b': { parameterSize: 'x'.repeat(32), capabilities: Array.from({ length: 16 }, () => 'y'.repeat(32)) },
      'many:1b': { capabilities: Array.from({ length: 17 }, () => 'tools') },
      'mixed:1b': { capabilities: ['tools', 7] },
      'nested:1b': { capabilities: [['tools']] },
    });
    assert.deepEqual(details === null ? null : Object.fromEntries(details), {
      'qwen3:8b': { parameterSize: '8.2B', capabilities: ['completion', 'tools'] },
      'gemma:2b': { parameterSize: null, capabilities: null },
      'long:1b': { parameterSize: null, capabilities: null },
      'edge:1b': { parameterSize: 'x'.repeat(32), capabilities: Array.from({ length: 16 }, () => 'y'.repeat(32)) },
      'many:1b': { parameterSize: null, capabilities: null },
      'mixed:1b': { parameterSize: null, capabilities: null },
      'nested:1b': { parameterSize: null, capabilities: null },
    });
  });

  it('skips an entry under an impossible model name or that is not an object', () => {
    const details = readModelDetails({
      '': { parameterSize: '1B' },
      ['x'.repeat(257)]: { parameterSize: '1B' },
      'a:1b': 'big',
      'b:1b': ['1B'],
      'c:1b': null,
      'ok:1b': {},
    });
    assert.deepEqual(details === null ? null : [...details.keys()], ['ok:1b']);
  });

  const refused: readonly { name: string; value: unknown }[] = [
    { name: 'an array', value: [{ parameterSize: '1B' }] },
    { name: 'null', value: null },
    { name: 'a string', value: '8.2B' },
    { name: 'more than 2,000 models', value: Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`m${i}`, {}])) },
  ];
  for (const r of refused) it(`reads ${r.name} as no details at all`, () => assert.equal(readModelDetails(r.value), null));

  it('reads 2,000 models, the most it takes', () => {
    assert.equal(readModelDetails(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`m${i}`, {}])))?.size, 2000);
  });

  it('is what readCapabilities carries as modelDetails', () => {
    assert.deepEqual(read({ modelDetails: { 'qwen3:8b': { parameterSize: '8.2B' } } }).modelDetails?.get('qwen3:8b'), {
      parameterSize: '8.2B',
      capabilities: null,
    });
    assert.equal(read({}).modelDetails, null);
  });
});

describe('publishCapabilities: the inventory and what is said about it', () => {
  const engine = (backendId: string, healthy: boolean, models: BackendView['models']): BackendView => ({
    backendId,
    kind: 'ollama',
    url: 'http://127.0.0.1:11434',
    running: true,
    healthy,
    models,
    error: null,
    probedMsAgo: 0,
  });
  const model = (name: string, parameterSize: string | null, capabilities: string[] | null) => ({ name, parameterSize, capabilities, sizeBytes: null });
  const inputs = (extra: Partial<PublishInputs> = {}): PublishInputs => ({
    nodeUuid: 'u-1',
    backends: [
      engine('ollama', true, [model('qwen3:8b', '8.2B', ['completion', 'tools']), model('bare:1b', null, null), model('sized:1b', '1B', null)]),
      engine('ollama-2', true, [model('qwen3:8b', '9B', null), model('caps:1b', null, ['embedding'])]),
      engine('ollama-down', false, [model('down:7b', '7B', ['tools'])]),
    ],
    inFlightRequests: 0,
    acceptingWork: true,
    maxPromptTokens: null,
    ...extra,
  });
  const wire = (extra: Partial<PublishInputs> = {}) => JSON.parse(JSON.stringify(publishCapabilities(inputs(extra)))) as Record<string, unknown>;

  it('lists the healthy engines only', () => {
    assert.deepEqual(wire().backends, [
      { kind: 'ollama', models: ['qwen3:8b', 'bare:1b', 'sized:1b'] },
      { kind: 'ollama', models: ['qwen3:8b', 'caps:1b'] },
    ]);
  });

  it('describes each model of a healthy engine once, as the first engine describing it says, leaving out models no engine describes', () => {
    assert.deepEqual(wire().modelDetails, {
      'qwen3:8b': { parameterSize: '8.2B', capabilities: ['completion', 'tools'] },
      'sized:1b': { parameterSize: '1B', capabilities: null },
      'caps:1b': { parameterSize: null, capabilities: ['embedding'] },
    });
  });

  it('describes models named like members of every object as any other', () => {
    const named = inputs({ backends: [engine('ollama', true, [model('constructor', '1B', null), model('__proto__', '2B', null)])] });
    assert.deepEqual(JSON.parse(JSON.stringify(publishCapabilities(named))).modelDetails, {
      constructor: { parameterSize: '1B', capabilities: null },
      // Computed, so the literal has the key as its own rather than as its prototype.
      ['__proto__']: { parameterSize: '2B', capabilities: null },
    });
  });

  it('says nothing about models while not taking work', () => {
    assert.equal('modelDetails' in wire({ acceptingWork: false }), false);
  });

  it('names what each engine withholds on its entry, and node-wide only what every healthy engine listing it withholds', () => {
    const onFirst = wire({ unservable: (b, m) => b.backendId === 'ollama' && m === 'qwen3:8b' });
    assert.deepEqual(onFirst.backends, [
      { kind: 'ollama', models: ['qwen3:8b', 'bare:1b', 'sized:1b'], unservable: ['qwen3:8b'] },
      { kind: 'ollama', models: ['qwen3:8b', 'caps:1b'] },
    ]);
    assert.equal('unservableModels' in onFirst, false, 'ollama-2 still serves it');
    assert.deepEqual(wire({ unservable: (_b, m) => m === 'qwen3:8b' }).unservableModels, ['qwen3:8b']);
    // An unhealthy engine is not published, and what it withholds does not count against the others.
    assert.deepEqual(wire({ unservable: (_b, m) => m === 'bare:1b' || m === 'down:7b' }).unservableModels, ['bare:1b']);
  });

  it('leaves both keys off when nothing is withheld', () => {
    const doc = wire({ unservable: () => false });
    assert.equal('unservableModels' in doc, false);
    assert.equal(
      (doc.backends as object[]).some((e) => 'unservable' in e),
      false,
    );
  });

  it('sends the throughput advert when something was timed', () => {
    const throughput = {
      'qwen3:8b': { bands: [{ fromTokens: 8192, promptTokens: 10_000, tokensPerSec: 480.5, deadline: false, ageMs: 0 }], decodeTokensPerSec: 42 },
    };
    assert.deepEqual(wire({ throughput }).throughput, throughput);
    assert.equal('throughput' in wire({ throughput: null }), false);
  });
});

describe("peerView: whether a peer's figures are its word now", () => {
  const answered = {
    probeFailure: null,
    probeFailureSince: null,
    probeFailureGap: null,
    capabilities: read({}),
    capabilitiesAtMs: 0,
    forwardedAtSnapshot: 0,
    leftAt: null,
  };
  const rows: { case: string; status?: PeerRow['status']; health?: Partial<PeerHealth>; nowMs?: number; current: boolean | null }[] = [
    { case: 'connected, last check good, within three polls', current: true },
    { case: 'connected, snapshot exactly three polls old', nowMs: 90_000, current: true },
    { case: 'connected, snapshot older than three polls', nowMs: 90_001, current: false },
    { case: 'connected, but the last check failed', health: { probeFailure: 'unreachable' }, current: false },
    { case: 'marked unreachable', status: 'unreachable', health: { probeFailure: 'unreachable' }, current: false },
    { case: 'refusing this Hub', health: { probeFailure: 'unauthorized' }, current: false },
    { case: 'never polled: no figures at all', health: { capabilities: null, capabilitiesAtMs: null }, current: null },
  ];
  for (const r of rows)
    it(`${String(r.current)} when ${r.case}`, async () => {
      const { peerView } = await import('./peer-view.js');
      const view = peerView(
        peerRowFixture(r.status ? { status: r.status } : {}),
        { ...answered, ...r.health },
        { selfName: null, pairing: { approvedThereAt: null, confirming: false }, nowMs: r.nowMs ?? 0, pollSeconds: 30 },
      );
      assert.equal(view.figuresCurrent, r.current);
    });
});
