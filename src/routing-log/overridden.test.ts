import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NULL_PLACEMENT_RECORDS, type RoutingLogEntry } from './entry.js';
import { withOverridden } from './overridden.js';
import type { ContentionRecord, SlotsRecord, ThroughputRecord } from './placement-records.js';

const base: RoutingLogEntry = {
  ...NULL_PLACEMENT_RECORDS,
  id: 'r',
  timestamp: 't',
  updatedAt: 't',
  direction: 'outbound',
  path: '/api/chat',
  model: 'm',
  node: 'hub-a',
  backend: 'ollama',
  backendId: null,
  candidates: 2,
  attempt: 2,
  failedOverFrom: ['hub-b'],
  attempts: [],
  outcome: 'served',
  status: 200,
  durationMs: 1,
  totalMs: 2,
  clientClosed: false,
  stoppedReadingMs: null,
  requestError: null,
  reason: null,
  stream: false,
  bodyBytes: 1,
  budgetMs: 300_000,
  traceId: null,
};
const ceiling = { estimatedTokens: 9000, excluded: [{ node: 'hub-a', maxPromptTokens: 1024 }], overridden: false };
const cap = { numCtx: 65_536, source: 'request' as const, excluded: [{ node: 'hub-a', maxNumCtx: 16_384 }], overridden: false };
const withheld = { demoted: [{ node: 'hub-a', backend: null, backendId: null, until: 'x', reason: 'degenerate-output' }], overridden: false };

describe('withOverridden', () => {
  const rows: readonly { name: string; row: RoutingLogEntry; expect: [boolean | null, boolean | null, boolean | null] }[] = [
    {
      name: 'placed on a node the ceiling, the cap and withholding moved back: all three overridden',
      row: { ...base, promptCeiling: ceiling, contextCap: cap, withheld },
      expect: [true, true, true],
    },
    {
      name: 'placed elsewhere: none overridden',
      row: { ...base, node: 'hub-b', promptCeiling: ceiling, contextCap: cap, withheld },
      expect: [false, false, false],
    },
    { name: 'no record: nothing to mark', row: base, expect: [null, null, null] },
    { name: 'an inbound row is never marked', row: { ...base, direction: 'inbound', promptCeiling: ceiling }, expect: [false, null, null] },
    { name: 'a row no node answered is not marked', row: { ...base, node: null, promptCeiling: ceiling }, expect: [false, null, null] },
    {
      name: 'a local engine withheld is not matched by another kind',
      row: {
        ...base,
        node: 'local',
        backend: 'vllm',
        backendId: 'vllm',
        withheld: { ...withheld, demoted: [{ ...withheld.demoted[0]!, node: 'local', backend: 'ollama' as const, backendId: 'ollama' }] },
      },
      expect: [null, null, false],
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const out = withOverridden(r.row);
      assert.deepEqual([out.promptCeiling?.overridden ?? null, out.contextCap?.overridden ?? null, out.withheld?.overridden ?? null], r.expect);
    });
  }
  it('returns the same row when nothing changes', () => assert.equal(withOverridden(base), base));
});

describe('withOverridden: slots, throughput and contention follow the same rule', () => {
  const PEER = 'beta-max';
  const slots: SlotsRecord = {
    demoted: [{ node: PEER, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
    allFull: false,
    full: [{ node: PEER, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
    overridden: false,
  };
  const throughput: ThroughputRecord = {
    estimatedTokens: 46_000,
    budgetMs: 920_000,
    estimates: [
      {
        node: PEER,
        backend: null,
        backendId: null,
        tokensPerSec: 20,
        fromPromptTokens: 10_000,
        extrapolated: true,
        predictedMs: 2_000_000,
        source: 'observed',
        deadline: false,
        slow: true,
        moved: true,
      },
    ],
    unmeasured: [],
    slowerDemoted: [],
    overridden: false,
  };
  const contention: ContentionRecord = {
    numCtx: null,
    demoted: [
      { node: 'local', backend: 'ollama', backendId: 'ollama', busyWith: [{ model: 'x', numCtx: null }], runsAt: null, behind: [PEER], overriddenBy: null },
    ],
    overridden: false,
  };
  const marks = (row: RoutingLogEntry) => {
    const out = withOverridden(row);
    return [out.slots?.overridden ?? null, out.throughput?.overridden ?? null, out.contention?.overridden ?? null];
  };
  const onPeer = { ...base, node: PEER, backend: 'vllm' as const, backendId: null, slots, throughput, contention };
  const onLocal = { ...base, node: 'local', backend: 'ollama' as const, backendId: 'ollama', slots, throughput, contention };

  it("marks slots and throughput when the request was served on the peer they demoted (a peer's engine is its own choice)", () =>
    assert.deepEqual(marks(onPeer), [true, true, false]));
  it('marks contention when the local engine that gave way served', () => assert.deepEqual(marks(onLocal), [false, false, true]));
  it('marks nothing when the local engine named is another kind', () =>
    assert.deepEqual(marks({ ...onLocal, backend: 'vllm', backendId: 'vllm' }), [false, false, false]));
  it('marks the same way when the row settled on a verdict there, or on a caller who hung up waiting on it', () => {
    const verdict = {
      ...onPeer,
      outcome: 'failed' as const,
      status: 500,
      requestError: { signature: 'no-user-query', basis: 'definitive' as const, confirms: null },
    };
    const hungUp = { ...onLocal, outcome: 'failed' as const, status: null, durationMs: null, clientClosed: true };
    assert.deepEqual(marks(verdict), [true, true, false]);
    assert.deepEqual(marks(hungUp), [false, false, true]);
  });
  it('does not mark throughput for a slow node that kept its place (nothing ranked with it could go first)', () => {
    const kept = { ...throughput, estimates: throughput.estimates.map((e) => ({ ...e, moved: false })) };
    assert.deepEqual(marks({ ...onPeer, throughput: kept }), [true, false, false]);
  });
  it('does not mark slots on a full node that was never moved, when every slot was full', () => {
    const allFull: SlotsRecord = {
      demoted: [],
      allFull: true,
      full: [
        { node: 'local', backend: 'ollama', backendId: 'ollama', inFlight: 2, loadReported: true, slots: 2 },
        { node: PEER, backend: null, backendId: null, inFlight: 4, loadReported: true, slots: 4 },
      ],
      overridden: false,
    };
    assert.deepEqual(marks({ ...onLocal, slots: allFull }), [false, false, true]);
    assert.deepEqual(marks({ ...onPeer, slots: allFull }), [false, true, false]);
  });
  it('does not mark slots on a full node its group had no free one to move ahead of; marks the one it moved', () => {
    const OTHER = 'core-2';
    const split: SlotsRecord = {
      demoted: [{ node: PEER, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 }],
      allFull: false,
      full: [
        { node: OTHER, backend: null, backendId: null, inFlight: 4, loadReported: true, slots: 4 },
        { node: PEER, backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 },
      ],
      overridden: false,
    };
    assert.deepEqual(marks({ ...onPeer, node: OTHER, slots: split }), [false, false, false]);
    assert.deepEqual(marks({ ...onPeer, slots: split }), [true, true, false]);
  });
  it('marks nothing on a walk that ran out (no node)', () => assert.deepEqual(marks({ ...onPeer, node: null, outcome: 'failed' }), [false, false, false]));
  it('keeps the records it does not change as the same objects', () => {
    const out = withOverridden(onLocal);
    assert.equal(out.slots, slots);
    assert.equal(out.throughput, throughput);
  });
});

describe('withOverridden: two local engines of one kind (OLLAMA_URL lists two)', () => {
  // ollama-1 was moved back by every record that judges an engine; the row says which engine served.
  const local = { node: 'local', backend: 'ollama' as const, backendId: 'ollama-1' };
  const records = {
    withheld: { demoted: [{ ...local, until: 'x', reason: 'unused-output' }], overridden: false },
    slots: {
      demoted: [{ ...local, inFlight: 1, loadReported: true, slots: 1 }],
      allFull: false,
      full: [{ ...local, inFlight: 1, loadReported: true, slots: 1 }],
      overridden: false,
    },
    throughput: {
      estimatedTokens: 46_000,
      budgetMs: 920_000,
      estimates: [
        {
          ...local,
          tokensPerSec: 20,
          fromPromptTokens: 10_000,
          extrapolated: true,
          predictedMs: 2_000_000,
          source: 'observed' as const,
          deadline: false,
          slow: true,
          moved: true,
        },
      ],
      unmeasured: [],
      slowerDemoted: [],
      overridden: false,
    },
    contention: {
      numCtx: null,
      demoted: [{ ...local, busyWith: [{ model: 'x', numCtx: null }], runsAt: null, behind: ['core-2'], overriddenBy: null }],
      overridden: false,
    },
  };
  const marks = (backendId: string) => {
    const out = withOverridden({ ...base, node: 'local', backend: 'ollama', backendId, ...records });
    return [out.withheld?.overridden, out.slots?.overridden, out.throughput?.overridden, out.contention?.overridden];
  };

  it('marks nothing when the other engine served: it was not moved back', () => assert.deepEqual(marks('ollama-2'), [false, false, false, false]));
  it('marks every record when the engine they moved back served anyway', () => assert.deepEqual(marks('ollama-1'), [true, true, true, true]));
});
