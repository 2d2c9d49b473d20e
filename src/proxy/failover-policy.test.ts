import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideOnStatus,
  describeFailure,
  failureStatus,
  type AttemptFailure,
  type StatusDecision,
  decideOnAnswer,
  type AnswerContext,
  type AnswerDecision,
} from './failover-policy.js';

describe('decideOnStatus', () => {
  const cases: readonly { name: string; status: number; decision: StatusDecision }[] = [
    { name: '200 is an answer', status: 200, decision: 'commit' },
    { name: '204 is an answer', status: 204, decision: 'commit' },
    { name: "400 is the request's own fault", status: 400, decision: 'commit' },
    { name: '401 from an engine goes back to the app', status: 401, decision: 'commit' },
    { name: '403 from an engine goes back to the app', status: 403, decision: 'commit' },
    { name: '404 (model not found there) goes back to the app', status: 404, decision: 'commit' },
    { name: "413 is the request's own fault", status: 413, decision: 'commit' },
    { name: "422 is the request's own fault", status: 422, decision: 'commit' },
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
    {
      failure: { kind: 'body-dropped', status: 200, reason: 'other side closed' },
      reason: "the engine's connection dropped mid-body (other side closed)",
      status: 200,
    },
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

describe('decideOnAnswer: the peer rules on top of the status rule', () => {
  const local = { fromPeer: false, engineMarked: false, last: false };
  const peerOwn = { fromPeer: true, engineMarked: false, last: false };
  const peerOwnLast = { fromPeer: true, engineMarked: false, last: true };
  const peerEngine = { fromPeer: true, engineMarked: true, last: false };
  const peerEngineLast = { fromPeer: true, engineMarked: true, last: true };
  const commit = { action: 'commit', warnEngineRefusal: false } as const;
  const moveOn = { action: 'fail-over', dropPeer: false, warnEngineRefusal: false } as const;
  const dropPeer = { action: 'fail-over', dropPeer: true, warnEngineRefusal: false } as const;
  const moveOnWarn = { action: 'fail-over', dropPeer: false, warnEngineRefusal: true } as const;
  const commitWarn = { action: 'commit', warnEngineRefusal: true } as const;
  const cases: readonly { name: string; status: number; ctx: AnswerContext; decision: AnswerDecision }[] = [
    // A local engine: the status rule alone.
    { name: 'a local 200 is committed', status: 200, ctx: local, decision: commit },
    { name: "a local 401 is the request's (committed, no warning)", status: 401, ctx: local, decision: commit },
    { name: 'a local 403 is committed', status: 403, ctx: local, decision: commit },
    { name: 'a local 404 is committed', status: 404, ctx: local, decision: commit },
    { name: 'a local 500 moves on and drops nothing', status: 500, ctx: local, decision: moveOn },
    { name: 'a local 429 moves on', status: 429, ctx: local, decision: moveOn },
    // The peer's own refusals (no X-Hub-Pool-Backend): it stopped trusting this Hub.
    { name: "the peer's own 401 moves on and drops its capabilities", status: 401, ctx: peerOwn, decision: dropPeer },
    { name: "the peer's own 403 moves on and drops its capabilities", status: 403, ctx: peerOwn, decision: dropPeer },
    { name: "the peer's own 404 moves on and drops its capabilities", status: 404, ctx: peerOwn, decision: dropPeer },
    { name: "the peer's own 404 from the last candidate still drops it (never an app answer)", status: 404, ctx: peerOwnLast, decision: dropPeer },
    { name: "the peer's own 403 from the last candidate still drops it", status: 403, ctx: peerOwnLast, decision: dropPeer },
    { name: "the peer's own 400 is the request's fault: committed", status: 400, ctx: peerOwn, decision: commit },
    { name: "the peer's own 405 is committed, not read as a pairing refusal", status: 405, ctx: peerOwn, decision: commit },
    { name: "the peer's own 503 moves on and keeps the pairing", status: 503, ctx: peerOwn, decision: moveOn },
    { name: "the peer's 200 is committed", status: 200, ctx: peerOwn, decision: commit },
    // A peer's engine refused the key the peer holds for it (marked).
    { name: 'a marked 401 moves on, keeps the pairing and warns', status: 401, ctx: peerEngine, decision: moveOnWarn },
    { name: 'a marked 403 moves on, keeps the pairing and warns', status: 403, ctx: peerEngine, decision: moveOnWarn },
    { name: 'a marked 401 from the last candidate goes to the app, with the warning', status: 401, ctx: peerEngineLast, decision: commitWarn },
    { name: 'a marked 403 from the last candidate goes to the app, with the warning', status: 403, ctx: peerEngineLast, decision: commitWarn },
    { name: "a marked 404 is the engine's answer about the request: committed, pairing kept", status: 404, ctx: peerEngine, decision: commit },
    { name: 'a marked 400 is committed', status: 400, ctx: peerEngine, decision: commit },
    { name: 'a marked 500 moves on without a warning', status: 500, ctx: peerEngine, decision: moveOn },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(decideOnAnswer(c.status, c.ctx), c.decision));
  }
});
