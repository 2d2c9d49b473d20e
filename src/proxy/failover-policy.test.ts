import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideOnStatus, describeFailure, type StatusDecision } from './failover-policy.js';

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
});
