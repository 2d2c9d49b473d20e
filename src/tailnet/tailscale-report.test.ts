import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skewFromDate } from '../peers/peer-clock.js';
import { certificateState } from './tailscale-report.js';
import type { TailscaleState } from './tailscale-status.js';

const connected: TailscaleState = {
  answered: true,
  backendState: 'Running',
  connected: true,
  version: '1.90.1',
  nodeFqdn: 'hub-a.tail0.ts.net',
  tailnetSuffix: 'tail0.ts.net',
  tailnetName: 't',
  magicDnsEnabled: true,
  certDomains: ['hub-a.tail0.ts.net'],
  tailscaleIps: ['100.101.1.2'],
  health: [],
  peers: [],
  problem: null,
};

describe('certificateState', () => {
  const cases: { name: string; state: TailscaleState; verdict: 'ok' | 'missing' | 'unknown' }[] = [
    { name: 'the name is among CertDomains', state: connected, verdict: 'ok' },
    { name: 'CertDomains empty: HTTPS certificates off', state: { ...connected, certDomains: [] }, verdict: 'missing' },
    { name: 'CertDomains names other hosts only', state: { ...connected, certDomains: ['other.tail0.ts.net'] }, verdict: 'missing' },
    { name: 'an old daemon that does not report CertDomains', state: { ...connected, certDomains: null }, verdict: 'unknown' },
    { name: 'not connected', state: { ...connected, connected: false, problem: 'logged out' }, verdict: 'unknown' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(certificateState(c.state, 'hub-a.tail0.ts.net').verdict, c.verdict));
});

describe('skewFromDate', () => {
  it("is the peer's Date minus the midpoint of the call", () => {
    const sent = Date.UTC(2026, 11, 1, 12, 0, 0);
    assert.equal(skewFromDate(new Date(sent + 90_000).toUTCString(), sent, sent + 2_000), 89_000);
  });
  it('is null without a usable Date', () => {
    assert.equal(skewFromDate(undefined, 0, 0), null);
    assert.equal(skewFromDate('yesterday', 0, 0), null);
  });
});
