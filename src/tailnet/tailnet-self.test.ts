import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseTailscaleStatus, readTailnetSelf, type TailnetSelf } from './tailnet-self.js';
import type { TailscaleRun } from './tailscale-exec.js';
import { readTailscaleStatus, type TailscaleState } from './tailscale-status.js';

/** The daemon's status as the client would hand it over, from one run of the CLI. */
const statusOf = (run: () => Promise<TailscaleRun>) => async (): Promise<TailscaleState> => readTailscaleStatus(await run());
const printing = (stdout: string) => statusOf(async () => ({ ok: true, stdout }));

/** Our own `tailscale status --json` shape, trimmed to the fields protocols.md 6.1 lists. */
function statusSample(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    Version: '1.90.1-test',
    TUN: true,
    BackendState: 'Running',
    TailscaleIPs: ['100.70.8.9', 'fd7a:115c:a1e0::8:9'],
    Self: { ID: 'nSELF01', HostName: 'Studio', DNSName: 'studio.tailabcd.ts.net.', OS: 'macOS', Online: true },
    MagicDNSSuffix: 'tailabcd.ts.net',
    CurrentTailnet: { Name: 'team@example.org', MagicDNSSuffix: 'tailabcd.ts.net', MagicDNSEnabled: true },
    CertDomains: ['studio.tailabcd.ts.net'],
    Peer: { 'nodekey:01ab': { ID: 'nPEER01', HostName: 'rig', DNSName: 'rig.tailabcd.ts.net.', OS: 'linux', Online: true } },
    User: { '42': { ID: 42, LoginName: 'team@example.org', DisplayName: 'Team' } },
    ...overrides,
  };
}

const NONE: TailnetSelf = { nodeFqdn: null, tailnetSuffix: null, tailscaleConnected: false, source: 'none' };

describe('parseTailscaleStatus', () => {
  it('a running daemon: connected, Self.DNSName without its trailing dot, CurrentTailnet suffix', () => {
    assert.deepEqual(parseTailscaleStatus(statusSample()), {
      nodeFqdn: 'studio.tailabcd.ts.net',
      tailnetSuffix: 'tailabcd.ts.net',
      tailscaleConnected: true,
      source: 'tailscale',
    });
  });

  const cases: { name: string; json: unknown; expected: Partial<TailnetSelf> }[] = [
    {
      name: 'any BackendState but Running is not connected',
      json: statusSample({ BackendState: 'Stopped' }),
      expected: { tailscaleConnected: false, nodeFqdn: 'studio.tailabcd.ts.net' },
    },
    {
      name: 'NeedsLogin with an empty DNSName and no tailnet',
      json: statusSample({ BackendState: 'NeedsLogin', Self: { DNSName: '' }, CurrentTailnet: null, MagicDNSSuffix: '' }),
      expected: { tailscaleConnected: false, nodeFqdn: null, tailnetSuffix: null },
    },
    {
      name: 'CurrentTailnet missing: falls back to the top-level MagicDNSSuffix',
      json: statusSample({ CurrentTailnet: undefined, MagicDNSSuffix: 'tailold.ts.net' }),
      expected: { tailnetSuffix: 'tailold.ts.net' },
    },
    {
      name: 'CurrentTailnet suffix empty: falls back too',
      json: statusSample({ CurrentTailnet: { MagicDNSSuffix: '' }, MagicDNSSuffix: 'tailold.ts.net' }),
      expected: { tailnetSuffix: 'tailold.ts.net' },
    },
    {
      name: 'CurrentTailnet wins over the deprecated top-level key',
      json: statusSample({ MagicDNSSuffix: 'tailold.ts.net' }),
      expected: { tailnetSuffix: 'tailabcd.ts.net' },
    },
    {
      name: 'fields of the wrong type become null',
      json: statusSample({ Self: { DNSName: 7 }, CurrentTailnet: 'x', MagicDNSSuffix: ['y'] }),
      expected: { nodeFqdn: null, tailnetSuffix: null },
    },
    { name: 'Self missing', json: statusSample({ Self: undefined }), expected: { nodeFqdn: null, tailnetSuffix: 'tailabcd.ts.net' } },
    { name: 'a DNSName that is not a host name', json: statusSample({ Self: { DNSName: '100.70.8.9' } }), expected: { nodeFqdn: null } },
    { name: 'BackendState of the wrong type', json: statusSample({ BackendState: true }), expected: { tailscaleConnected: false } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const parsed = parseTailscaleStatus(c.json);
      assert.equal(parsed.source, 'tailscale');
      for (const [key, value] of Object.entries(c.expected)) assert.deepEqual(parsed[key as keyof TailnetSelf], value, key);
    });
  }

  const notObjects: { name: string; json: unknown }[] = [
    { name: 'null', json: null },
    { name: 'undefined', json: undefined },
    { name: 'a string', json: 'Running' },
    { name: 'a number', json: 42 },
    { name: 'an array holding a status', json: [statusSample()] },
  ];
  for (const c of notObjects) {
    it(`not a status object (${c.name}): nothing known`, () => assert.deepEqual(parseTailscaleStatus(c.json), NONE));
  }
});

describe('readTailnetSelf', () => {
  const running = printing(JSON.stringify(statusSample()));
  const mustNotRun = async (): Promise<TailscaleState> => assert.fail('tailscale must not be asked when env names this Hub');

  it('HUB_NODE_FQDN alone: the suffix is everything after the first label', async () => {
    assert.deepEqual(await readTailnetSelf({ envFqdn: 'Hub-A.tail9.ts.net.', envSuffix: null, status: mustNotRun }), {
      nodeFqdn: 'hub-a.tail9.ts.net',
      tailnetSuffix: 'tail9.ts.net',
      tailscaleConnected: false,
      source: 'env',
    });
  });

  it('both env values: HUB_TAILNET_SUFFIX is taken as given', async () => {
    const self = await readTailnetSelf({ envFqdn: 'hub-a.tail9.ts.net', envSuffix: 'other.ts.net', status: mustNotRun });
    assert.equal(self.tailnetSuffix, 'other.ts.net');
    assert.equal(self.source, 'env');
  });

  it('HUB_TAILNET_SUFFIX alone: no name, but a suffix to check peers against', async () => {
    assert.deepEqual(await readTailnetSelf({ envFqdn: null, envSuffix: 'tail9.ts.net', status: mustNotRun }), {
      nodeFqdn: null,
      tailnetSuffix: 'tail9.ts.net',
      tailscaleConnected: false,
      source: 'env',
    });
  });

  it('env values that do not normalise are ignored and the daemon is asked', async () => {
    const self = await readTailnetSelf({ envFqdn: 'https://hub-a', envSuffix: 'bad suffix', status: running });
    assert.equal(self.source, 'tailscale');
    assert.equal(self.nodeFqdn, 'studio.tailabcd.ts.net');
  });

  it('no env: the daemon answers', async () => {
    const self = await readTailnetSelf({ envFqdn: null, envSuffix: null, status: running });
    assert.deepEqual(self, { nodeFqdn: 'studio.tailabcd.ts.net', tailnetSuffix: 'tailabcd.ts.net', tailscaleConnected: true, source: 'tailscale' });
  });

  const failures: { name: string; status: () => Promise<TailscaleState> }[] = [
    { name: 'the runner found no tailscale', status: statusOf(async () => ({ ok: false, kind: 'missing', exitCode: null, stderr: '' })) },
    {
      name: 'the daemon is not running',
      status: statusOf(async () => ({
        ok: false,
        kind: 'failed',
        exitCode: 1,
        stderr: "failed to connect to local tailscaled; it doesn't appear to be running",
      })),
    },
    { name: 'the output is not JSON', status: printing('failed to connect to local tailscaled') },
    { name: 'the output is JSON but not an object', status: printing('"Running"') },
    { name: 'the status read rejects', status: async () => Promise.reject(new Error('spawn EACCES')) },
  ];
  for (const f of failures) {
    it(`${f.name}: source none, nothing known`, async () => {
      assert.deepEqual(await readTailnetSelf({ envFqdn: null, envSuffix: null, status: f.status }), NONE);
    });
  }
});
