import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FLEET, WORKLOAD, type FleetSpec, type WorkloadSpec } from './data-files.js';
import { POLICIES } from './policies/all.js';
import { simulate } from './simulate.js';
import { buildTrace } from './trace.js';

/** Four nodes: a fast four-slot GPU, a one-slot GPU, a CPU node, and one whose model fails to load. */
const fleet: FleetSpec = FLEET.parse({
  description: 'test fleet',
  model: 'm',
  embedModel: 'e',
  keepAliveMs: 300_000,
  decodeShare: 0.3,
  embedMs: { gpu: 60, cpu: 400 },
  nodes: [
    {
      name: 'gpu-a',
      source: 'assigned',
      gpu: true,
      hardware: { gpus: [{ vendor: 'nvidia', memoryGiB: 24 }], memoryGiB: 64, source: 'assigned' },
      prefillTokensPerSec: 500,
      growthTokens: 186000,
      decodeTokensPerSec: 40,
      slots: 4,
      statesSlots: true,
      defaultNumCtx: 65536,
      maxNumCtx: 65536,
      loadMs: 10000,
    },
    {
      name: 'gpu-b',
      source: 'assigned',
      gpu: true,
      hardware: { gpus: [{ vendor: 'nvidia', memoryGiB: 10 }], memoryGiB: 32, source: 'assigned' },
      prefillTokensPerSec: 250,
      growthTokens: 186000,
      decodeTokensPerSec: 25,
      slots: 1,
      statesSlots: true,
      defaultNumCtx: 16384,
      maxNumCtx: 16384,
      loadMs: 10000,
      faults: [{ kind: 'placeholders', probability: 0.5, fromS: 0, toS: 100000 }],
    },
    {
      name: 'cpu-c',
      source: 'assigned',
      gpu: false,
      hardware: { gpus: [], memoryGiB: 32, source: 'assigned' },
      prefillTokensPerSec: 30,
      growthTokens: 19000,
      decodeTokensPerSec: 6,
      slots: 2,
      statesSlots: false,
      defaultNumCtx: 65536,
      maxNumCtx: null,
      loadMs: 30000,
    },
    {
      name: 'broken-d',
      source: 'assigned',
      gpu: true,
      hardware: { gpus: [{ vendor: 'nvidia', memoryGiB: 24 }], memoryGiB: 64, source: 'assigned' },
      prefillTokensPerSec: 300,
      growthTokens: 186000,
      decodeTokensPerSec: 30,
      slots: 4,
      statesSlots: true,
      defaultNumCtx: 65536,
      maxNumCtx: 65536,
      loadMs: 10000,
      faults: [{ kind: 'fails', failMs: 2000, fromS: 0, toS: 100000 }],
    },
  ],
});

const workload: WorkloadSpec = WORKLOAD.parse({
  description: 'test workload',
  seed: 7,
  startWindowS: 600,
  agents: [
    {
      name: 'agent',
      sessions: 4,
      entries: ['gpu-a', 'cpu-c'],
      systemTokens: 8000,
      firstHistoryTokens: [0, 6000],
      appendTokens: [500, 2000],
      turns: [3, 5],
      maxPromptTokens: 30000,
      parallelProbability: 0.4,
      outputTokens: [50, 200],
      thinkMs: [1000, 5000],
      numCtx: 65536,
    },
  ],
  chat: { perMinute: 3, promptTokens: [100, 1500], outputTokens: [20, 100], entries: ['gpu-b'] },
  embeddings: { perMinute: 4, inputTokens: [10, 200], entries: ['gpu-a'] },
});

describe('bench/fleet simulator', () => {
  for (const key of ['round-robin', 'hub-pool-affinity-slots', 'oracle']) {
    const policy = POLICIES.find((p) => p.key === key)!;

    it(`gives the same results for the same seed (${key})`, () => {
      const trace = buildTrace(workload, workload.seed);
      const a = simulate(fleet, trace, policy.factory, workload.seed);
      const b = simulate(fleet, buildTrace(workload, workload.seed), policy.factory, workload.seed);
      assert.deepEqual(b.requests, a.requests);
      assert.deepEqual([...b.load], [...a.load]);
    });

    it(`settles every request of the trace exactly once, answered by one node or failed (${key})`, () => {
      const trace = buildTrace(workload, workload.seed);
      const run = simulate(fleet, trace, policy.factory, workload.seed);
      const expected = [...trace.sessions.flatMap((s) => s.turns.flatMap((t) => t.calls.map((c) => c.id))), ...trace.open.map((o) => o.request.id)].sort();
      assert.deepEqual(run.requests.map((r) => r.id).sort(), expected);
      for (const r of run.requests) {
        if (r.outcome === 'ok') assert.ok(r.servedBy !== null && r.ttftMs !== null && r.ttftMs >= 0, `${r.id} answered without a node or a time`);
        else assert.equal(r.ttftMs, null, `${r.id} has a time to first token without a usable answer`);
        assert.ok(r.attempts >= 1, `${r.id} was never tried`);
      }
    });
  }

  it('lets a different seed give a different trace', () => {
    const a = buildTrace(workload, 7);
    const b = buildTrace(workload, 8);
    assert.notDeepEqual(
      a.sessions.map((s) => s.startMs),
      b.sessions.map((s) => s.startMs),
    );
  });
});
