import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { localEngine, peerNode } from '../placement/steps/candidate-fixtures.js';
import type { ContentionRecord, SlotsRecord, ThroughputRecord } from '../routing-log/placement-records.js';
import { overriddenPatch } from './placement-outcome.js';
import { EngineWork } from './engine-work.js';

const P = peerNode('beta-max', 2);
const L = localEngine('ollama', 1);
const slots: SlotsRecord = {
  demoted: [{ node: P.node, backend: null, inFlight: 2, slots: 2 }],
  allFull: false,
  full: [{ node: P.node, backend: null, inFlight: 2, slots: 2 }],
  overridden: false,
};
const contention: ContentionRecord = {
  numCtx: null,
  demoted: [{ node: 'local', backend: 'ollama', busyWith: [{ model: 'x', numCtx: null }], runsAt: null, behind: [P.node], overriddenBy: null }],
  overridden: false,
};
const throughput: ThroughputRecord = {
  estimatedTokens: 46_000,
  budgetMs: 920_000,
  estimates: [
    {
      node: P.node,
      backend: null,
      tokensPerSec: 20,
      fromPromptTokens: 10_000,
      extrapolated: true,
      predictedMs: 2_000_000,
      source: 'observed',
      deadline: false,
      slow: true,
    },
  ],
  unmeasured: [],
  slowerDemoted: [],
  overridden: false,
};

describe('overriddenPatch: a demotion the walk had to undo', () => {
  it('marks slots and throughput when the node they demoted served', () =>
    assert.deepEqual(overriddenPatch({ slots, throughput, contention: null }, { ...P, engine: 'ollama' }), {
      slots: { ...slots, overridden: true },
      throughput: { ...throughput, overridden: true },
    }));
  it('marks contention when the local engine that gave way served', () =>
    assert.deepEqual(overriddenPatch({ slots: null, throughput: null, contention }, L), { contention: { ...contention, overridden: true } }));
  it('changes nothing when a node the records left alone served', () =>
    assert.deepEqual(overriddenPatch({ slots, throughput, contention }, peerNode('core-2')), {}));
});

describe('EngineWork: generations per local engine as this Hub placed them', () => {
  const start = (requestId: string, candidate = L, model = 'qwen3.8:27b') => ({ requestId, model, candidate, index: 0 });
  it('counts an attempt on a local engine from its start to its end, with the window it runs at', () => {
    const work = new EngineWork();
    work.expect('r1', new Map([['ollama', 65536]]));
    work.onAttempt(start('r1'));
    assert.deepEqual(work.busy().get('ollama'), [{ model: 'qwen3.8:27b', numCtx: 65536 }]);
    work.onAttemptEnd(start('r1'));
    assert.equal(work.busy().get('ollama'), undefined);
  });
  it('ignores attempts on peers and requests never declared (embeddings)', () => {
    const work = new EngineWork();
    work.expect('r1', new Map([['ollama', null]]));
    work.onAttempt(start('r1', P));
    work.onAttempt(start('r2'));
    assert.equal(work.busy().size, 0);
  });
});
