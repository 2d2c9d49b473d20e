import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failoverReasonKind, type FailoverReasonKind } from './failover-reason.js';

describe('a failover reason as a bounded metric label', () => {
  const cases: Array<{ status: number | null; reason: string; kind: FailoverReasonKind }> = [
    { status: null, reason: 'No response headers within 327000ms', kind: 'header_deadline' },
    { status: null, reason: 'fetch failed (ECONNREFUSED)', kind: 'transport' },
    { status: 200, reason: "the engine's connection dropped mid-body (UND_ERR_SOCKET)", kind: 'dropped_mid_body' },
    { status: 200, reason: 'output fault (unused-tokens)', kind: 'output_fault' },
    { status: null, reason: 'local load refused: not enough memory', kind: 'local_load_refused' },
    { status: null, reason: 'no credentials for this peer (the pairing is gone)', kind: 'no_credentials' },
    { status: 503, reason: 'HTTP 503', kind: 'http_5xx' },
    { status: 500, reason: 'HTTP 500 (no-user-query)', kind: 'http_5xx' },
    { status: 408, reason: 'HTTP 408', kind: 'http_408' },
    { status: 429, reason: 'HTTP 429', kind: 'http_429' },
    { status: 401, reason: 'HTTP 401', kind: 'http_4xx' },
  ];
  for (const c of cases) it(`${c.reason} → ${c.kind}`, () => assert.equal(failoverReasonKind(c), c.kind));
});
