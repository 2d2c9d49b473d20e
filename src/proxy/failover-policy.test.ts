import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideOnStatus, describeFailure, failureStatus, type AttemptFailure, type StatusDecision } from './failover-policy.js';

describe('decideOnStatus', () => {
  const cases: readonly { name: string; status: number; decision: StatusDecision }[] = [
    { name: '200 is an answer', status: 200, decision: 'commit' },
    { name: '204 is an answer', status: 204, decision: 'commit' },
    { name: '400 is the request\'s own fault', status: 400, decision: 'commit' },
    { name: '401 from an engine goes back to the app', status: 401, decision: 'commit' },
    { name: '403 from an engine goes back to the app', status: 403, decision: 'commit' },
    { name: '404 (model not found there) goes back to the app', status: 404, decision: 'commit' },
    { name: '413 is the request\'s own fault', status: 413, decision: 'commit' },
    { name: '422 is the request\'s own fault', status: 422, decision: 'commit' },
    { name: '408 is the engine talking about its queue: fail over', status: 408, decision: 'fail-over' },
    { name: '429 is load shedding: fail over', status: 429, decision: 'fail-over' },
    { name: '500 fails over', status: 500, decision: 'fail-over' },
    { name: '502 fails over', status: 502, decision: 'fail-over' },
    { name: '503 fails over', status: 503, decision: 'fail-over' },
    { name: '504 fails over', status: 504, decision: 'fail-over' },
    { name: 'an odd 599 still fails over', status: 599, decision: 'fail-over' },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(decideOnStatus(c.status), c.decision));
  }
});

describe('describeFailure', () => {
  it('names a header deadline with its budget', () => {
    assert.equal(describeFailure({ kind: 'deadline', budgetMs: 327_000 }), 'No response headers within 327000ms');
  });
  it('passes a transport reason through as given', () => {
    assert.equal(describeFailure({ kind: 'transport', reason: 'fetch failed (ECONNREFUSED)' }), 'fetch failed (ECONNREFUSED)');
  });
  const cases: readonly { failure: AttemptFailure; reason: string; status: number | null }[] = [
    { failure: { kind: 'no-credentials', why: 'no key pinned' }, reason: 'no credentials for this peer (no key pinned)', status: null },
    { failure: { kind: 'status', status: 503, peerRefused: false }, reason: 'HTTP 503', status: 503 },
    { failure: { kind: 'status', status: 403, peerRefused: true }, reason: 'HTTP 403 (the peer refused this Hub)', status: 403 },
    { failure: { kind: 'engine-500', signature: null }, reason: 'HTTP 500', status: 500 },
    { failure: { kind: 'engine-500', signature: 'context-length' }, reason: 'HTTP 500 (context-length)', status: 500 },
    { failure: { kind: 'body-dropped', status: 200, reason: 'other side closed' }, reason: "the engine's connection dropped mid-body (other side closed)", status: 200 },
    { failure: { kind: 'body-stalled', status: 200, idleMs: 1000 }, reason: 'the engine stopped sending its body (nothing for 1000ms)', status: 200 },
    { failure: { kind: 'output-fault', status: 200, fault: 'truncated-upstream' }, reason: 'output fault (truncated-upstream)', status: 200 },
  ];
  for (const c of cases) {
    it(`records ${c.failure.kind} as "${c.reason}" with status ${c.status}`, () => {
      assert.equal(describeFailure(c.failure), c.reason);
      assert.equal(failureStatus(c.failure), c.status);
    });
  }
});
