import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CredentialGap, PeerAnswer } from './peer-client.js';
import { judgeProbe, NOT_A_CAPABILITIES_DOCUMENT, probeFailureAction, type ProbeFailureKind } from './probe-failure.js';

const DOCUMENT = { nodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d', backends: [], acceptingWork: true };
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
    { name: 'no answer at all', answer: { ok: false, error: 'ECONNREFUSED', auth: 'signed', unsent: null }, kind: 'unreachable', reason: 'ECONNREFUSED' },
    {
      name: 'a probe never sent because this Hub cannot sign',
      answer: { ok: false, error: 'this Hub cannot sign: the key cannot be unsealed', auth: 'signed', unsent: 'own_key_unusable' },
      kind: 'cannot_authenticate',
      reason: 'this Hub cannot sign: the key cannot be unsealed',
    },
    {
      name: 'a probe never sent because poolRequireSignedPeers is on for a bearer-only pairing',
      answer: { ok: false, error: 'poolRequireSignedPeers is on and this peer has no pinned key', auth: 'none', unsent: 'signed_required' },
      kind: 'cannot_authenticate',
    },
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
      if (verdict.ok) assert.equal(verdict.capabilities.nodeUuid, '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d');
      else if (r.reason !== undefined) assert.equal(verdict.reason, r.reason);
    });
});

describe('probeFailureAction', () => {
  const PEER = 'b.tail0.ts.net';
  const gaps: readonly { gap: CredentialGap; fix: RegExp }[] = [
    { gap: 'own_key_unusable', fix: /cihub pool rotate-identity/ },
    { gap: 'signed_required', fix: /cihub pool set poolRequireSignedPeers false.*until status shows b\.tail0\.ts\.net signed/ },
    { gap: 'no_token', fix: /cihub pool unpair b\.tail0\.ts\.net, then pair again/ },
    { gap: 'no_name', fix: /HUB_NODE_FQDN/ },
  ];
  for (const g of gaps)
    it(`names the fix for a probe not sent (${g.gap}) and never says waiting will do`, () => {
      const action = probeFailureAction('cannot_authenticate', PEER, 'a.tail0.ts.net', g.gap);
      assert.match(action, g.fix);
      assert.match(action, /no probe was sent/);
      assert.doesNotMatch(action, /none needed|rejoins/);
    });

  it('keeps "none needed" for a peer that gave no answer, which clears by itself', () => {
    assert.match(probeFailureAction('unreachable', PEER, 'a.tail0.ts.net'), /^none needed/);
  });
});
