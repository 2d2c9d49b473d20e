import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../util/clock.js';
import type { WalkSettled } from '../../proxy/walk-types.js';
import type { Candidate } from '../types.js';
import { PrefixAffinity, type AffinityRequest } from './prefix-affinity.js';

const cand = (node: string, backendId: string | null): Candidate => ({
  id: `${node}/${backendId ?? 'pool'}`,
  node,
  backendId,
  engine: null,
  url: 'http://x',
  queueDepth: 0,
  peerId: backendId === null ? node : null,
  hardwareTier: null,
  pressure: 1,
});
const req = (requestId: string, over: Partial<AffinityRequest> = {}): AffinityRequest => ({
  requestId,
  model: 'm',
  judgedRoute: true,
  sessionHeader: 'run-1',
  body: {},
  ...over,
});
const ON = { poolPrefixAffinityMaxInFlight: 2, poolPrefixAffinityMargin: 0 };
const settled = (requestId: string, end: WalkSettled['end']) => ({ requestId, end }) as WalkSettled;

function walk(a: PrefixAffinity, requestId: string, tried: Candidate[], end: WalkSettled['end']) {
  tried.forEach((candidate, index) => a.observer.onAttempt!({ requestId, model: 'm', candidate, index }));
  a.observer.onSettled!(settled(requestId, end));
}

describe('PrefixAffinity', () => {
  it('at limit 0 hashes and remembers nothing', () => {
    const a = new PrefixAffinity({ clock: new ManualClock(), ttlMs: 600_000 });
    assert.equal(a.contextFor(req('r1'), { poolPrefixAffinityMaxInFlight: 0, poolPrefixAffinityMargin: 3 }), null);
    walk(a, 'r1', [cand('core-1', null)], 'committed');
    assert.equal(a.size, 0);
  });

  it('never judges embeddings (routes a ceiling does not judge)', () => {
    const a = new PrefixAffinity({ clock: new ManualClock(), ttlMs: 600_000 });
    assert.equal(a.contextFor(req('r1', { judgedRoute: false }), ON), null);
  });

  it('writes each attempt as it is placed, so a failover leaves the candidate that took the work', () => {
    const a = new PrefixAffinity({ clock: new ManualClock(), ttlMs: 600_000 });
    a.contextFor(req('r1'), ON);
    walk(a, 'r1', [cand('core-1', null), cand('local', 'ollama')], 'committed');
    assert.deepEqual(a.contextFor(req('r2'), ON)?.remembered, { node: 'local', backendId: 'ollama' });
  });

  it('a walk that failed on every candidate forgets the session; a hang-up does not', () => {
    const a = new PrefixAffinity({ clock: new ManualClock(), ttlMs: 600_000 });
    a.contextFor(req('r1'), ON);
    walk(a, 'r1', [cand('core-1', null)], 'hung-up');
    assert.notEqual(a.contextFor(req('r2'), ON)?.remembered, null);
    walk(a, 'r2', [cand('core-1', null), cand('core-2', null)], 'exhausted');
    assert.equal(a.contextFor(req('r3'), ON)?.remembered, null);
  });

  it("gives the step the key's source, what is remembered and both settings", () => {
    const a = new PrefixAffinity({ clock: new ManualClock(), ttlMs: 600_000 });
    assert.deepEqual(a.contextFor(req('r1'), { poolPrefixAffinityMaxInFlight: 3, poolPrefixAffinityMargin: 1 }), {
      keySource: 'header',
      remembered: null,
      maxInFlight: 3,
      margin: 1,
    });
    assert.equal(a.contextFor(req('r2', { sessionHeader: undefined, body: { prompt: 'p' } }), ON)?.keySource, 'hashed');
  });

  it('a request with no valid session header and no prompt head gets no context, and its walk writes nothing', () => {
    const a = new PrefixAffinity({ clock: new ManualClock(), ttlMs: 600_000 });
    assert.equal(a.contextFor(req('r1', { sessionHeader: 'has space', body: {} }), ON), null);
    walk(a, 'r1', [cand('core-1', null)], 'committed');
    assert.equal(a.size, 0);
  });

  it('an abandoned request (no candidate, so no walk) leaves no key behind to be written later', () => {
    const a = new PrefixAffinity({ clock: new ManualClock(), ttlMs: 600_000 });
    a.contextFor(req('r1'), ON);
    a.abandon('r1');
    walk(a, 'r1', [cand('core-1', null)], 'committed');
    assert.equal(a.size, 0);
  });

  it('a settled walk lets go of its key: a later attempt under the same request id writes nothing', () => {
    const a = new PrefixAffinity({ clock: new ManualClock(), ttlMs: 600_000 });
    a.contextFor(req('r1'), ON);
    walk(a, 'r1', [cand('core-1', null)], 'committed');
    walk(a, 'r1', [cand('core-2', null)], 'committed');
    assert.deepEqual(a.contextFor(req('r2'), ON)?.remembered, { node: 'core-1', backendId: null });
  });

  it('HUB_POOL_PREFIX_AFFINITY_TTL_MS is the TTL it is built with', () => {
    const clock = new ManualClock();
    const a = new PrefixAffinity({ clock, ttlMs: 5_000 });
    a.contextFor(req('r1'), ON);
    walk(a, 'r1', [cand('core-1', null)], 'committed');
    clock.advance(5_000);
    assert.equal(a.contextFor(req('r2'), ON)?.remembered, null);
  });
});
