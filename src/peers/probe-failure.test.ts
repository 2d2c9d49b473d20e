import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerAnswer } from './peer-client.js';
import { classifyProbe, type ProbeFailureKind } from './probe-failure.js';

const answered = (status: number, headers: Record<string, string> = {}): PeerAnswer => ({ ok: true, status, headers, json: null, auth: 'signed' });

describe('classifyProbe', () => {
  const rows: readonly { name: string; answer: PeerAnswer; kind: ProbeFailureKind | null }[] = [
    { name: 'a 200', answer: answered(200), kind: null },
    { name: 'no answer at all', answer: { ok: false, error: 'ECONNREFUSED', auth: 'signed' }, kind: 'unreachable' },
    { name: 'a 401 naming identity-mismatch', answer: answered(401, { 'x-hub-pool-refusal': 'identity-mismatch' }), kind: 'identity_changed' },
    { name: 'a bare 401', answer: answered(401), kind: 'unauthorized' },
    { name: 'a 401 with another refusal value', answer: answered(401, { 'x-hub-pool-refusal': 'bad-signature' }), kind: 'unauthorized' },
    { name: 'a 403 naming identity-mismatch', answer: answered(403, { 'x-hub-pool-refusal': 'identity-mismatch' }), kind: 'unreachable' },
    { name: 'a 502', answer: answered(502), kind: 'unreachable' },
  ];
  for (const r of rows) it(`reads ${r.name} as ${String(r.kind)}`, () => assert.equal(classifyProbe(r.answer), r.kind));
});
