import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeFailure, failureStatus, type AttemptFailure } from '../proxy/failover-policy.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FAILOVER_REASON_KINDS, failoverReasonKind, type FailoverReasonKind } from './failover-reason.js';

/**
 * Every kind of failure the walk records, as describeFailure words it, and the label it must get.
 * Keyed by kind, so a new kind of failure does not compile until it is given its label here.
 */
const EVERY_FAILURE: { readonly [K in AttemptFailure['kind']]: ReadonlyArray<readonly [Extract<AttemptFailure, { kind: K }>, FailoverReasonKind]> } = {
  transport: [
    [{ kind: 'transport', reason: 'fetch failed (ECONNREFUSED)' }, 'transport'],
    [{ kind: 'transport', reason: 'other side closed (UND_ERR_SOCKET)' }, 'transport'],
  ],
  deadline: [[{ kind: 'deadline', budgetMs: 327_000 }, 'header_deadline']],
  'no-credentials': [[{ kind: 'no-credentials', why: 'the pairing is gone' }, 'no_credentials']],
  status: [
    [{ kind: 'status', status: 503, peerRefused: false }, 'http_5xx'],
    [{ kind: 'status', status: 408, peerRefused: false }, 'http_408'],
    [{ kind: 'status', status: 429, peerRefused: false }, 'http_429'],
    [{ kind: 'status', status: 401, peerRefused: true }, 'http_4xx'],
    [{ kind: 'status', status: 403, peerRefused: false }, 'http_4xx'],
    [{ kind: 'status', status: 404, peerRefused: true }, 'http_4xx'],
  ],
  'engine-500': [
    [{ kind: 'engine-500', signature: null }, 'http_5xx'],
    [{ kind: 'engine-500', signature: 'no-user-query' }, 'http_5xx'],
  ],
  'body-dropped': [[{ kind: 'body-dropped', status: 200, reason: 'terminated (UND_ERR_SOCKET)' }, 'dropped_mid_body']],
  'body-stalled': [
    [{ kind: 'body-stalled', status: 200, idleMs: 300_000 }, 'body_stalled'],
    [{ kind: 'body-stalled', status: 500, idleMs: 300_000 }, 'body_stalled'],
  ],
  'output-fault': [
    [{ kind: 'output-fault', status: 200, fault: 'truncated-upstream' }, 'output_fault'],
    [{ kind: 'output-fault', status: 200, fault: 'degenerate-output' }, 'output_fault'],
    [{ kind: 'output-fault', status: 200, fault: 'malformed-output' }, 'output_fault'],
  ],
};

describe('a failover reason as a bounded metric label', () => {
  for (const examples of Object.values(EVERY_FAILURE)) {
    for (const [failure, kind] of examples) {
      const attempt = { status: failureStatus(failure), reason: describeFailure(failure) };
      it(`labels "${attempt.reason}" (status ${attempt.status}) ${kind}`, () => assert.equal(failoverReasonKind(attempt), kind));
    }
  }

  it('calls http_4xx only a status from 400 to 499, and words it cannot place under a lower status other', () => {
    assert.equal(failoverReasonKind({ status: 499, reason: 'HTTP 499' }), 'http_4xx');
    assert.equal(failoverReasonKind({ status: 200, reason: 'something new' }), 'other');
    assert.equal(failoverReasonKind({ status: 302, reason: 'HTTP 302' }), 'other');
  });

  it('takes no value the walk cannot record: every kind but other comes from some failure above', () => {
    const produced = new Set<FailoverReasonKind>(['other']);
    for (const examples of Object.values(EVERY_FAILURE)) for (const [, kind] of examples) produced.add(kind);
    assert.deepEqual([...FAILOVER_REASON_KINDS].sort(), [...produced].sort());
  });

  it('is documented with the values it takes, in docs/api.md', () => {
    const api = readFileSync(resolve(import.meta.dirname, '../../../docs/api.md'), 'utf8');
    const row = api.split('\n').find((line) => line.startsWith('| `cihub_failovers_total` |'));
    assert.ok(row, 'the metric has a row in the table');
    const kinds = row.split('is a kind:')[1] ?? '';
    const documented = [...kinds.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]!);
    assert.deepEqual(documented.sort(), [...FAILOVER_REASON_KINDS].sort());
  });
});
