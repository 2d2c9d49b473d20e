import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiKeyRecord } from '../store/api-keys.js';
import { decideAccess, identifyCaller, sameSecret, type AccessVerdict, type RouteAccess } from './operator-credential.js';

const OPERATOR_KEY = 'cihub_op_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const QA_KEY = 'cihub_qa_monitoring';
const INFERENCE_KEY = 'cihub_inf_editor';
const REVOKED_KEY = 'cihub_qa_revoked';

const record = (scope: ApiKeyRecord['scope'], name: string): ApiKeyRecord => ({
  id: name,
  name,
  scope,
  createdAt: '2026-11-30T12:00:00.000Z',
  revokedAt: null,
});

/** A key store double that records every key it was asked about. */
function recordingLookup(): { lookup: (key: string) => ApiKeyRecord | null; calls: string[] } {
  const calls: string[] = [];
  const keys = new Map([
    [QA_KEY, record('qa:read', 'fleet-qa')],
    [INFERENCE_KEY, record('inference', 'editor')],
  ]);
  return {
    calls,
    lookup: (key) => {
      calls.push(key);
      return keys.get(key) ?? null;
    },
  };
}

const ALLOWED: AccessVerdict = { allowed: true };
const UNAUTHORIZED: AccessVerdict = { allowed: false, status: 401, code: 'HUB_ERR_UNAUTHORIZED' };
const QA_ROUTE_REFUSED: AccessVerdict = { allowed: false, status: 403, code: 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED' };

interface Row {
  readonly name: string;
  readonly authorization: string | undefined;
  readonly method: string;
  /** 'observability-read' for GET status and GET routing-log; 'operator' for everything else. */
  readonly access: RouteAccess;
  readonly verdict: AccessVerdict;
  /** How many times the key store may be consulted. */
  readonly lookups: number;
}

describe('identifyCaller + decideAccess on operator routes', () => {
  const rows: readonly Row[] = [
    { name: 'operator key on GET status', authorization: `Bearer ${OPERATOR_KEY}`, method: 'GET', access: 'observability-read', verdict: ALLOWED, lookups: 0 },
    { name: 'operator key on GET settings', authorization: `Bearer ${OPERATOR_KEY}`, method: 'GET', access: 'operator', verdict: ALLOWED, lookups: 0 },
    { name: 'operator key on PATCH settings', authorization: `Bearer ${OPERATOR_KEY}`, method: 'PATCH', access: 'operator', verdict: ALLOWED, lookups: 0 },
    { name: 'operator key on POST pins', authorization: `Bearer ${OPERATOR_KEY}`, method: 'POST', access: 'operator', verdict: ALLOWED, lookups: 0 },
    { name: 'operator key on DELETE pins', authorization: `Bearer ${OPERATOR_KEY}`, method: 'DELETE', access: 'operator', verdict: ALLOWED, lookups: 0 },
    { name: 'operator key with a lower-case scheme', authorization: `bearer ${OPERATOR_KEY}`, method: 'GET', access: 'operator', verdict: ALLOWED, lookups: 0 },
    { name: 'qa:read key on GET status', authorization: `Bearer ${QA_KEY}`, method: 'GET', access: 'observability-read', verdict: ALLOWED, lookups: 1 },
    { name: 'qa:read key on HEAD routing-log', authorization: `Bearer ${QA_KEY}`, method: 'HEAD', access: 'observability-read', verdict: ALLOWED, lookups: 1 },
    {
      name: 'qa:read key on GET settings: 403, the route is not one it reads',
      authorization: `Bearer ${QA_KEY}`,
      method: 'GET',
      access: 'operator',
      verdict: QA_ROUTE_REFUSED,
      lookups: 1,
    },
    {
      name: 'qa:read key on PATCH settings: 401 without asking the key store',
      authorization: `Bearer ${QA_KEY}`,
      method: 'PATCH',
      access: 'operator',
      verdict: UNAUTHORIZED,
      lookups: 0,
    },
    {
      name: 'qa:read key on POST pins: 401 without asking the key store',
      authorization: `Bearer ${QA_KEY}`,
      method: 'POST',
      access: 'operator',
      verdict: UNAUTHORIZED,
      lookups: 0,
    },
    {
      name: 'qa:read key on a POST to a read route: still 401, never looked up',
      authorization: `Bearer ${QA_KEY}`,
      method: 'POST',
      access: 'observability-read',
      verdict: UNAUTHORIZED,
      lookups: 0,
    },
    {
      name: 'qa:read key on DELETE: 401 without asking the key store',
      authorization: `Bearer ${QA_KEY}`,
      method: 'DELETE',
      access: 'operator',
      verdict: UNAUTHORIZED,
      lookups: 0,
    },
    {
      name: 'inference key on GET status: refused',
      authorization: `Bearer ${INFERENCE_KEY}`,
      method: 'GET',
      access: 'observability-read',
      verdict: UNAUTHORIZED,
      lookups: 1,
    },
    {
      name: 'inference key on GET settings: refused',
      authorization: `Bearer ${INFERENCE_KEY}`,
      method: 'GET',
      access: 'operator',
      verdict: UNAUTHORIZED,
      lookups: 1,
    },
    {
      name: 'inference key on PATCH settings: refused, never looked up',
      authorization: `Bearer ${INFERENCE_KEY}`,
      method: 'PATCH',
      access: 'operator',
      verdict: UNAUTHORIZED,
      lookups: 0,
    },
    {
      name: 'revoked or unknown key on GET status: refused',
      authorization: `Bearer ${REVOKED_KEY}`,
      method: 'GET',
      access: 'observability-read',
      verdict: UNAUTHORIZED,
      lookups: 1,
    },
    { name: 'no Authorization header', authorization: undefined, method: 'GET', access: 'observability-read', verdict: UNAUTHORIZED, lookups: 0 },
    {
      name: 'another scheme carrying the operator key',
      authorization: `Basic ${OPERATOR_KEY}`,
      method: 'GET',
      access: 'operator',
      verdict: UNAUTHORIZED,
      lookups: 0,
    },
    { name: 'a Bearer header with no token', authorization: 'Bearer ', method: 'GET', access: 'operator', verdict: UNAUTHORIZED, lookups: 0 },
    {
      name: 'a prefix of the operator key',
      authorization: `Bearer ${OPERATOR_KEY.slice(0, -1)}`,
      method: 'GET',
      access: 'operator',
      verdict: UNAUTHORIZED,
      lookups: 1,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const store = recordingLookup();
      const caller = identifyCaller(row.authorization, row.method, OPERATOR_KEY, store.lookup);
      assert.deepEqual(decideAccess(caller, row.access), row.verdict);
      assert.equal(store.calls.length, row.lookups);
    });
  }

  it('carries the qa:read key record on the caller it identifies', () => {
    const caller = identifyCaller(`Bearer ${QA_KEY}`, 'GET', OPERATOR_KEY, recordingLookup().lookup);
    assert.deepEqual(caller, { kind: 'qa-read', key: record('qa:read', 'fleet-qa') });
  });

  it('asks the key store about the token itself, not the header', () => {
    const store = recordingLookup();
    identifyCaller(`Bearer ${QA_KEY}`, 'GET', OPERATOR_KEY, store.lookup);
    assert.deepEqual(store.calls, [QA_KEY]);
  });
});

describe('sameSecret', () => {
  it('matches only the identical string, whatever the lengths', () => {
    assert.equal(sameSecret('abc', 'abc'), true);
    assert.equal(sameSecret('abc', 'abd'), false);
    assert.equal(sameSecret('abc', 'abcd'), false);
    assert.equal(sameSecret('', 'a'), false);
  });
});
