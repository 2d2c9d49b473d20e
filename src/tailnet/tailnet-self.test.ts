import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../util/clock.js';
import { parseTailscaleStatus, readTailnetSelf, TailnetSelfCache, tailscaleStatusRunner, type TailnetSelf } from './tailnet-self.js';

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
    { name: 'any BackendState but Running is not connected', json: statusSample({ BackendState: 'Stopped' }), expected: { tailscaleConnected: false, nodeFqdn: 'studio.tailabcd.ts.net' } },
    { name: 'NeedsLogin with an empty DNSName and no tailnet', json: statusSample({ BackendState: 'NeedsLogin', Self: { DNSName: '' }, CurrentTailnet: null, MagicDNSSuffix: '' }), expected: { tailscaleConnected: false, nodeFqdn: null, tailnetSuffix: null } },
    { name: 'CurrentTailnet missing: falls back to the top-level MagicDNSSuffix', json: statusSample({ CurrentTailnet: undefined, MagicDNSSuffix: 'tailold.ts.net' }), expected: { tailnetSuffix: 'tailold.ts.net' } },
    { name: 'CurrentTailnet suffix empty: falls back too', json: statusSample({ CurrentTailnet: { MagicDNSSuffix: '' }, MagicDNSSuffix: 'tailold.ts.net' }), expected: { tailnetSuffix: 'tailold.ts.net' } },
    { name: 'CurrentTailnet wins over the deprecated top-level key', json: statusSample({ MagicDNSSuffix: 'tailold.ts.net' }), expected: { tailnetSuffix: 'tailabcd.ts.net' } },
    { name: 'fields of the wrong type become null', json: statusSample({ Self: { DNSName: 7 }, CurrentTailnet: 'x', MagicDNSSuffix: ['y'] }), expected: { nodeFqdn: null, tailnetSuffix: null } },
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
  const running = async () => JSON.stringify(statusSample());
  const mustNotRun = async (): Promise<string | null> => assert.fail('tailscale must not be asked when env names this Hub');

  it('HUB_NODE_FQDN alone: the suffix is everything after the first label', async () => {
    assert.deepEqual(await readTailnetSelf({ envFqdn: 'Hub-A.tail9.ts.net.', envSuffix: null, runStatus: mustNotRun }), {
      nodeFqdn: 'hub-a.tail9.ts.net',
      tailnetSuffix: 'tail9.ts.net',
      tailscaleConnected: false,
      source: 'env',
    });
  });

  it('both env values: HUB_TAILNET_SUFFIX is taken as given', async () => {
    const self = await readTailnetSelf({ envFqdn: 'hub-a.tail9.ts.net', envSuffix: 'other.ts.net', runStatus: mustNotRun });
    assert.equal(self.tailnetSuffix, 'other.ts.net');
    assert.equal(self.source, 'env');
  });

  it('HUB_TAILNET_SUFFIX alone: no name, but a suffix to check peers against', async () => {
    assert.deepEqual(await readTailnetSelf({ envFqdn: null, envSuffix: 'tail9.ts.net', runStatus: mustNotRun }), {
      nodeFqdn: null,
      tailnetSuffix: 'tail9.ts.net',
      tailscaleConnected: false,
      source: 'env',
    });
  });

  it('env values that do not normalise are ignored and the daemon is asked', async () => {
    const self = await readTailnetSelf({ envFqdn: 'https://hub-a', envSuffix: 'bad suffix', runStatus: running });
    assert.equal(self.source, 'tailscale');
    assert.equal(self.nodeFqdn, 'studio.tailabcd.ts.net');
  });

  it('no env: the daemon answers', async () => {
    const self = await readTailnetSelf({ envFqdn: null, envSuffix: null, runStatus: running });
    assert.deepEqual(self, { nodeFqdn: 'studio.tailabcd.ts.net', tailnetSuffix: 'tailabcd.ts.net', tailscaleConnected: true, source: 'tailscale' });
  });

  const failures: { name: string; runStatus: () => Promise<string | null> }[] = [
    { name: 'the runner found no tailscale', runStatus: async () => null },
    { name: 'the output is not JSON', runStatus: async () => 'failed to connect to local tailscaled' },
    { name: 'the output is JSON but not an object', runStatus: async () => '"Running"' },
    { name: 'the runner rejects', runStatus: async () => Promise.reject(new Error('spawn EACCES')) },
  ];
  for (const f of failures) {
    it(`${f.name}: source none, nothing known`, async () => {
      assert.deepEqual(await readTailnetSelf({ envFqdn: null, envSuffix: null, runStatus: f.runStatus }), NONE);
    });
  }
});

describe('tailscaleStatusRunner', () => {
  it('resolves null when the binary does not exist', async () => {
    assert.equal(await tailscaleStatusRunner(2_000, '/nonexistent/tailscale-for-test')(), null);
  });
  it('resolves null when the command exits non-zero', async () => {
    // node status --json: node cannot find a script named "status" and exits 1.
    assert.equal(await tailscaleStatusRunner(5_000, process.execPath)(), null);
  });
  it('resolves null when the command outlives the timeout', { skip: process.platform === 'win32' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tailscale-stub-'));
    try {
      const stub = join(dir, 'tailscale');
      writeFileSync(stub, '#!/bin/sh\nexec sleep 5\n');
      chmodSync(stub, 0o755);
      const started = Date.now();
      assert.equal(await tailscaleStatusRunner(200, stub)(), null);
      assert.ok(Date.now() - started < 4_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('resolves with stdout when the command succeeds', { skip: process.platform === 'win32' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tailscale-stub-'));
    try {
      const stub = join(dir, 'tailscale');
      writeFileSync(stub, '#!/bin/sh\necho "{\\"args\\":\\"$1 $2\\"}"\n');
      chmodSync(stub, 0o755);
      assert.deepEqual(JSON.parse((await tailscaleStatusRunner(5_000, stub)()) ?? 'null'), { args: 'status --json' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('TailnetSelfCache', () => {
  function counted(): { calls: () => number; runStatus: () => Promise<string | null> } {
    let calls = 0;
    return { calls: () => calls, runStatus: async () => { calls += 1; return JSON.stringify(statusSample()); } };
  }

  it('reuses one reading for 30 s, then asks the daemon again', async () => {
    const clock = new ManualClock();
    const status = counted();
    const cache = new TailnetSelfCache({ clock, envFqdn: null, envSuffix: null, runStatus: status.runStatus });
    assert.equal((await cache.get()).nodeFqdn, 'studio.tailabcd.ts.net');
    clock.advance(29_999);
    await cache.get();
    assert.equal(status.calls(), 1);
    clock.advance(1);
    await cache.get();
    assert.equal(status.calls(), 2);
  });

  it('concurrent callers share one read', async () => {
    const status = counted();
    const cache = new TailnetSelfCache({ clock: new ManualClock(), envFqdn: null, envSuffix: null, runStatus: status.runStatus });
    await Promise.all([cache.get(), cache.get(), cache.get()]);
    assert.equal(status.calls(), 1);
  });

  it('a failed read is cached too, so a Hub without Tailscale is not re-spawning it per poll', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const cache = new TailnetSelfCache({ clock, envFqdn: null, envSuffix: null, runStatus: async () => { calls += 1; return null; } });
    assert.equal((await cache.get()).source, 'none');
    await cache.get();
    assert.equal(calls, 1);
  });

  it('invalidate forces the next read', async () => {
    const status = counted();
    const cache = new TailnetSelfCache({ clock: new ManualClock(), envFqdn: null, envSuffix: null, runStatus: status.runStatus });
    await cache.get();
    cache.invalidate();
    await cache.get();
    assert.equal(status.calls(), 2);
  });
});
