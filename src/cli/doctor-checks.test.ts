import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePoolDirections } from '../config/kill-switch.js';
import { DEFAULT_SETTINGS } from '../config/settings-schema.js';
import { buildPoolStatus, type StatusInputs } from '../status/pool-status.js';
import { doctorChecks, servePublishesPort } from './doctor-checks.js';

const inputs = (extra: Partial<StatusInputs> = {}): StatusInputs => ({
  directions: resolvePoolDirections({ userDisabled: false, outboundDisabled: false, inboundDisabled: false }, DEFAULT_SETTINGS),
  settings: DEFAULT_SETTINGS,
  envMaxPromptTokens: null,
  backends: [],
  inFlight: () => 0,
  peers: [],
  tailnet: { nodeFqdn: 'hub-a.tail0.ts.net', tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'tailscale' },
  identity: null,
  pairingPin: { active: false, expiresAt: null },
  peerOrigins: new Map(),
  tailscaleAdminApiConfigured: false,
  ...extra,
});
const verdicts = (extra: Partial<StatusInputs>, serve: { publishesPort: boolean } | null = { publishesPort: true }) =>
  Object.fromEntries(doctorChecks(buildPoolStatus(inputs(extra)), serve, 5002).map((c) => [c.code, c.verdict]));

describe('doctorChecks', () => {
  const rows: readonly { name: string; extra: Partial<StatusInputs>; serve?: { publishesPort: boolean } | null; code: string; verdict: string }[] = [
    { name: 'C1 fails when this Hub has no tailnet name', extra: { tailnet: { nodeFqdn: null, tailnetSuffix: null, tailscaleConnected: false, source: 'none' } }, code: 'C1', verdict: 'fail' },
    { name: 'C2 fails when Tailscale Serve does not publish the Hub', extra: {}, serve: { publishesPort: false }, code: 'C2', verdict: 'fail' },
    { name: 'C2 is unknown when Tailscale cannot be asked', extra: {}, serve: null, code: 'C2', verdict: 'unknown' },
    { name: 'P1 fails when pooling is off by the environment', extra: { directions: resolvePoolDirections({ userDisabled: true, outboundDisabled: false, inboundDisabled: false }, DEFAULT_SETTINGS) }, code: 'P1', verdict: 'fail' },
    { name: 'P2 fails when the identity key cannot be opened', extra: { identity: { nodeUuid: 'u', fingerprint: 'f', identityError: 'unseal failed' } }, code: 'P2', verdict: 'fail' },
    { name: 'D1 warns loudly when the development dial map is active', extra: { peerOrigins: new Map([['hub-b.tail0.ts.net', 'http://127.0.0.1:5102']]) }, code: 'D1', verdict: 'warn' },
  ];
  for (const r of rows) it(r.name, () => assert.equal(verdicts(r.extra, r.serve === undefined ? { publishesPort: true } : r.serve)[r.code], r.verdict));

  it('F1 fails for a peer whose identity changed, and names what to do', () => {
    const status = buildPoolStatus(inputs());
    const refusing = { ...status, peers: [{ ...({} as (typeof status.peers)[number]), nodeFqdn: 'hub-b.tail0.ts.net', probeFailure: { kind: 'identity_changed' as const, since: null, action: 're-pair' } }] };
    const f1 = doctorChecks(refusing, { publishesPort: true }, 5002).find((c) => c.code === 'F1');
    assert.equal(f1?.verdict, 'fail');
    assert.match(f1?.found ?? '', /hub-b\.tail0\.ts\.net: identity changed/);
    assert.equal(f1?.fix, 're-pair');
  });

  it('has no D1 row without the map, and passes a healthy Hub', () => {
    const v = verdicts({});
    assert.equal(v.D1, undefined);
    assert.deepEqual([v.C1, v.C2, v.P1, v.P2, v.F1], ['ok', 'ok', 'ok', 'ok', 'ok']);
  });
});

describe('servePublishesPort', () => {
  it('finds a handler proxying to the port on loopback', () => {
    const json = { Web: { 'hub-a.tail0.ts.net:443': { Handlers: { '/': { Proxy: 'http://127.0.0.1:5002' } } } } };
    assert.equal(servePublishesPort(json, 5002), true);
    assert.equal(servePublishesPort(json, 5003), false);
    assert.equal(servePublishesPort({}, 5002), false);
  });
});
