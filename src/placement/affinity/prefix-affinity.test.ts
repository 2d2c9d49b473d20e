import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../util/clock.js';
import type { WalkSettled } from '../../proxy/walk-types.js';
import type { Candidate } from '../types.js';
import { PrefixAffinity, type AffinityLookup, type AffinityRequest } from './prefix-affinity.js';

const cand = (node: string, backendId: string | null): Candidate => ({
  id: `${node}/${backendId ?? 'pool'}`,
  node,
  backendId,
  engine: null,
  url: 'http://x',
  queueDepth: 0,
  loadReported: true,
  peerId: backendId === null ? node : null,
  hardwareTier: null,
  pressure: 1,
});
const req = (over: Partial<AffinityRequest> = {}): AffinityRequest => ({
  model: 'm',
  judgedRoute: true,
  sessionHeader: 'run-1',
  body: {},
  ...over,
});
const ON = { poolPrefixAffinityMaxInFlight: 2, poolPrefixAffinityMargin: 0 };
const settled = (requestId: string, end: WalkSettled['end']) => ({ requestId, end }) as WalkSettled;

/** The walk as the proxy runs it: followed under the lookup (when there is one), each attempt, then its settle. */
function walk(a: PrefixAffinity, requestId: string, lookup: AffinityLookup | null, tried: Candidate[], end: WalkSettled['end']) {
  if (lookup !== null) a.follow(requestId, lookup);
  tried.forEach((candidate, index) => a.observer.onAttempt!({ requestId, model: 'm', candidate, index }));
  a.observer.onSettled!(settled(requestId, end));
}

describe('PrefixAffinity', () => {
  const fresh = (clock = new ManualClock(), ttlMs = 600_000) => new PrefixAffinity({ clock, ttlMs });

  it('at limit 0 hashes and remembers nothing', () => {
    const a = fresh();
    const lookup = a.contextFor(req(), { poolPrefixAffinityMaxInFlight: 0, poolPrefixAffinityMargin: 3 });
    assert.equal(lookup, null);
    walk(a, 'r1', lookup, [cand('core-1', null)], 'committed');
    assert.equal(a.size, 0);
  });

  it('never judges embeddings (routes a ceiling does not judge)', () => {
    assert.equal(fresh().contextFor(req({ judgedRoute: false }), ON), null);
  });

  it('writes each attempt as it is placed, so a failover leaves the candidate that took the work', () => {
    const a = fresh();
    walk(a, 'r1', a.contextFor(req(), ON), [cand('core-1', null), cand('local', 'ollama')], 'committed');
    assert.deepEqual(a.contextFor(req(), ON)?.remembered, { node: 'local', backendId: 'ollama' });
  });

  it('a walk that failed on every candidate forgets the session; a hang-up does not', () => {
    const a = fresh();
    walk(a, 'r1', a.contextFor(req(), ON), [cand('core-1', null)], 'hung-up');
    assert.notEqual(a.contextFor(req(), ON)?.remembered, null);
    walk(a, 'r2', a.contextFor(req(), ON), [cand('core-1', null), cand('core-2', null)], 'exhausted');
    assert.equal(a.contextFor(req(), ON)?.remembered, null);
  });

  it("gives the step the key's source, what is remembered and both settings", () => {
    const a = fresh();
    const lookup = a.contextFor(req(), { poolPrefixAffinityMaxInFlight: 3, poolPrefixAffinityMargin: 1 });
    assert.deepEqual({ ...lookup, key: undefined }, { keySource: 'header', remembered: null, maxInFlight: 3, margin: 1, key: undefined });
    assert.match(lookup?.key ?? '', /^[0-9a-f]{64}$/, 'the key is a digest, never the header itself');
    assert.equal(a.contextFor(req({ sessionHeader: undefined, body: { prompt: 'p' } }), ON)?.keySource, 'hashed');
  });

  it('a request with no valid session header and no prompt head gets no context, and its walk writes nothing', () => {
    const a = fresh();
    const lookup = a.contextFor(req({ sessionHeader: 'has space', body: {} }), ON);
    assert.equal(lookup, null);
    walk(a, 'r1', lookup, [cand('core-1', null)], 'committed');
    assert.equal(a.size, 0);
  });

  it('a request that ends before its walk begins holds no key: attempts later made under its id write nothing', () => {
    const a = fresh();
    // Looked up, then placement threw: the proxy never reached follow().
    a.contextFor(req(), ON);
    walk(a, 'r1', null, [cand('core-1', null)], 'committed');
    assert.equal(a.size, 0);
  });

  it('a settled walk lets go of its key: a later attempt under the same request id writes nothing', () => {
    const a = fresh();
    walk(a, 'r1', a.contextFor(req(), ON), [cand('core-1', null)], 'committed');
    walk(a, 'r1', null, [cand('core-2', null)], 'committed');
    assert.deepEqual(a.contextFor(req(), ON)?.remembered, { node: 'core-1', backendId: null });
  });

  it('HUB_POOL_PREFIX_AFFINITY_TTL_MS is the TTL it is built with', () => {
    const clock = new ManualClock();
    const a = fresh(clock, 5_000);
    walk(a, 'r1', a.contextFor(req(), ON), [cand('core-1', null)], 'committed');
    clock.advance(5_000);
    assert.equal(a.contextFor(req(), ON)?.remembered, null);
  });
});
