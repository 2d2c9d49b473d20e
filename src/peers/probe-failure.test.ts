import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerAnswer } from './peer-client.js';
import { judgeProbe, NOT_A_CAPABILITIES_DOCUMENT, type ProbeFailureKind } from './probe-failure.js';

const DOCUMENT = { nodeUuid: 'u', backends: [], acceptingWork: true };
const answered = (status: number, headers: Record<string, string> = {}, json: unknown = null): PeerAnswer => ({
  ok: true,
  status,
  headers,
  json,
  auth: 'signed',
});

describe('judgeProbe', () => {
  const rows: readonly { name: string; answer: PeerAnswer; kind: ProbeFailureKind | null; reason?: string }[] = [
    { name: 'a 200 with a capabilities document', answer: answered(200, {}, DOCUMENT), kind: null },
    { name: 'a 200 whose body is not JSON (an HTML page, an empty body)', answer: answered(200), kind: 'unreachable', reason: NOT_A_CAPABILITIES_DOCUMENT },
    { name: 'a 200 with a JSON list', answer: answered(200, {}, []), kind: 'unreachable', reason: NOT_A_CAPABILITIES_DOCUMENT },
    { name: 'a 200 with a JSON string', answer: answered(200, {}, 'ok'), kind: 'unreachable', reason: NOT_A_CAPABILITIES_DOCUMENT },
    { name: 'no answer at all', answer: { ok: false, error: 'ECONNREFUSED', auth: 'signed' }, kind: 'unreachable', reason: 'ECONNREFUSED' },
    {
      name: 'a 401 naming identity-mismatch',
      answer: answered(401, { 'x-hub-pool-refusal': 'identity-mismatch' }),
      kind: 'identity_changed',
      reason: 'HTTP 401',
    },
    { name: 'a bare 401', answer: answered(401), kind: 'unauthorized', reason: 'HTTP 401' },
    { name: 'a 401 with another refusal value', answer: answered(401, { 'x-hub-pool-refusal': 'bad-signature' }), kind: 'unauthorized' },
    { name: 'a 403 naming identity-mismatch', answer: answered(403, { 'x-hub-pool-refusal': 'identity-mismatch' }), kind: 'unreachable' },
    { name: 'a 502, even with a document', answer: answered(502, {}, DOCUMENT), kind: 'unreachable', reason: 'HTTP 502' },
  ];
  for (const r of rows)
    it(`reads ${r.name} as ${String(r.kind ?? 'a success')}`, () => {
      const verdict = judgeProbe(r.answer);
      assert.equal(verdict.ok ? null : verdict.kind, r.kind);
      if (verdict.ok) assert.equal(verdict.capabilities.nodeUuid, 'u');
      else if (r.reason !== undefined) assert.equal(verdict.reason, r.reason);
    });
});
