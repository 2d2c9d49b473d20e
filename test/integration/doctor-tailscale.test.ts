/**
 * cihub pool doctor against a real Hub whose `tailscale` is a fake on PATH, one recorded state
 * at a time: what each check says, the fix it prints, and the exit status. The Hub publishes
 * itself with Serve at start when Tailscale lets it, and says what to run when it does not.
 */
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { after, describe, it } from 'node:test';
import type { DoctorCheck } from '../../src/cli/doctor-checks.js';
import { eventually, freePort, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import {
  FAKE_TAILNET_NAME,
  fakeTailscale,
  fqdn,
  loggedOutStatus,
  magicDnsOffStatus,
  oldDaemonStatus,
  runningStatus,
  type FakeTailscale,
  type FakeTailscaleState,
} from '../helpers/fake-tailscale.js';

const ACCOUNT = userInfo().username;
const started: HubProcess[] = [];
after(async () => {
  await Promise.all(started.map((h) => h.stop()));
});

async function hubWith(state: FakeTailscaleState, env: Record<string, string> = {}): Promise<{ hub: HubProcess; fake: FakeTailscale }> {
  const fake = fakeTailscale(state);
  const hub = await startHubProcess({ env: { PATH: fake.path, ...env } });
  started.push(hub);
  return { hub, fake };
}

async function doctor(hub: HubProcess): Promise<{ code: number | null; checks: Record<string, DoctorCheck>; stderr: string }> {
  const run = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
  const checks = (JSON.parse(run.stdout) as { checks: DoctorCheck[] }).checks;
  return { code: run.code, checks: Object.fromEntries(checks.map((c) => [c.code, c])), stderr: run.stderr };
}

const peers = [{ host: 'hub-b' }, { host: 'laptop', os: 'macOS' }];

describe('cihub pool doctor against each Tailscale state', () => {
  it('connected with no Serve entry: the Hub publishes itself at start, and every Tailscale check passes', async () => {
    const { hub, fake } = await hubWith({ status: runningStatus('hub-a', peers), serve: {}, operatorUser: ACCOUNT });
    const port = new URL(hub.url).port;
    // The fake logs a call as it starts and writes the Serve entry after, and doctor reads the
    // entry: waiting on the call alone let doctor in between (a 3 s pause of the fake between the
    // two, as a loaded machine can make, failed C2).
    await eventually(
      () => fake.calls().some((c) => c.join(' ') === `serve --bg --yes --https=443 http://127.0.0.1:${port}`) && fake.state().serve?.Web !== undefined,
      'the Hub to publish itself with Serve',
    );
    const d = await doctor(hub);
    assert.equal(d.code, 0, d.stderr);
    assert.deepEqual(
      ['C1', 'C2', 'C3', 'C4', 'D2'].map((c) => [c, d.checks[c]?.verdict]),
      [
        ['C1', 'ok'],
        ['C2', 'ok'],
        ['C3', 'ok'],
        ['C4', 'ok'],
        ['D2', 'ok'],
      ],
    );
    assert.match(d.checks.C2?.found ?? '', new RegExp(`publishes this Hub at https://hub-a\\.tail0\\.ts\\.net/ \\(port ${port}\\)`));
    assert.match(d.checks.D2?.found ?? '', /tailscale-daemon: 2 named/);
  });

  it('a HUB_NODE_FQDN that is not a MagicDNS name: the Hub warns naming it, then takes its name from Tailscale and publishes itself', async () => {
    const { hub, fake } = await hubWith({ status: runningStatus('hub-a', peers), serve: {}, operatorUser: ACCOUNT }, { HUB_NODE_FQDN: 'hub-a' });
    const port = new URL(hub.url).port;
    await eventually(
      () => fake.calls().some((c) => c.join(' ') === `serve --bg --yes --https=443 http://127.0.0.1:${port}`),
      'the Hub to publish itself with Serve, as with the variable unset',
    );
    const warnings = hub
      .log()
      .split('\n')
      .filter((l) => l.includes('"variable":"HUB_NODE_FQDN"'))
      .map((l) => JSON.parse(l) as { level: number; msg: string });
    assert.equal(warnings.length, 1, hub.log());
    assert.equal(warnings[0]!.level, 40);
    assert.match(warnings[0]!.msg, /^HUB_NODE_FQDN=hub-a is a single label; .*; using no stand-in name/);
    const status = await hub.api<{ localNode: { nodeFqdn: string | null; tailnetSource: string; tailnet: string | null } }>(
      'GET',
      '/api/inference/pool/status',
    );
    assert.deepEqual(
      [status.json.localNode.nodeFqdn, status.json.localNode.tailnetSource, status.json.localNode.tailnet],
      ['hub-a.tail0.ts.net', 'tailscale', FAKE_TAILNET_NAME],
    );
  });

  it("Serve refused: C2 and C4 fail with the exact command for the Hub's account, the log says it too, and doctor exits non-zero", async () => {
    const { hub } = await hubWith({ status: runningStatus('hub-a', peers), serve: {}, serveRefused: true });
    const command = `sudo tailscale set --operator=${ACCOUNT}`;
    await eventually(() => hub.log().includes(`Tailscale refused the Hub's changes: run once on this machine: ${command}`), 'the refusal in the log');
    const d = await doctor(hub);
    assert.equal(d.code, 1);
    assert.match(d.stderr, /checks need action: C2, C4/);
    assert.equal(d.checks.C2?.verdict, 'fail');
    assert.ok(d.checks.C2?.fix?.startsWith(`run once on this machine: ${command};`), d.checks.C2?.fix ?? '');
    assert.equal(d.checks.C4?.verdict, 'fail');
    assert.equal(d.checks.C4?.fix, `run once on this machine: ${command}`);
  });

  it('a Hub on 127.0.0.2: it does not publish itself, and C2 fails though Serve holds an entry for its port on 127.0.0.1', async () => {
    const port = await freePort();
    const fake = fakeTailscale({
      status: runningStatus('hub-a', peers),
      serve: { TCP: { '443': { HTTPS: true } }, Web: { [`${fqdn('hub-a')}:443`]: { Handlers: { '/': { Proxy: `http://127.0.0.1:${port}` } } } } },
      operatorUser: ACCOUNT,
    });
    const hub = await startHubProcess({ env: { PATH: fake.path }, host: '127.0.0.2', port });
    started.push(hub);
    await eventually(() => hub.log().includes('which Serve cannot reach at 127.0.0.1'), 'the Hub to say Serve cannot reach it');
    const d = await doctor(hub);
    assert.equal(d.code, 1);
    assert.equal(d.checks.C2?.verdict, 'fail');
    assert.match(d.checks.C2?.found ?? '', /the Hub listens on 127\.0\.0\.2, where Tailscale Serve cannot reach it/);
    assert.match(d.checks.C2?.fix ?? '', /HUB_HOST=0\.0\.0\.0/);
    assert.ok(!fake.calls().some((c) => c.includes('--bg')), 'nothing is published that would not reach the Hub');
  });

  it('logged out: C1 fails saying so, no directory can name a peer, and nothing is published', async () => {
    const { hub, fake } = await hubWith({ status: loggedOutStatus(), serve: {} });
    const d = await doctor(hub);
    assert.equal(d.code, 1);
    assert.equal(d.checks.C1?.verdict, 'fail');
    assert.match(d.checks.C1?.found ?? '', /logged out/);
    assert.equal(d.checks.C3?.verdict, 'unknown');
    assert.equal(d.checks.D2?.verdict, 'warn');
    assert.ok(!fake.calls().some((c) => c.includes('--bg')));
  });

  it('MagicDNS off: C1 fails with where to turn it on, and HTTPS certificates are missing', async () => {
    const { hub } = await hubWith({ status: magicDnsOffStatus('hub-a', peers), serve: {}, operatorUser: ACCOUNT });
    const d = await doctor(hub);
    assert.equal(d.code, 1);
    assert.equal(d.checks.C1?.verdict, 'fail');
    assert.match(d.checks.C1?.fix ?? '', /turn on MagicDNS/);
    assert.equal(d.checks.C3?.verdict, 'fail');
  });

  it('an old daemon: Serve and certificates read unknown (never a false pass or a crash), and the name still comes through', async () => {
    const { hub, fake } = await hubWith({ status: oldDaemonStatus('hub-a', peers), serveJson: false, debugPrefs: false });
    const d = await doctor(hub);
    assert.equal(d.checks.C1?.verdict, 'ok');
    assert.equal(d.checks.C2?.verdict, 'unknown');
    assert.match(d.checks.C2?.found ?? '', /too old/);
    assert.equal(d.checks.C3?.verdict, 'unknown');
    assert.ok(!fake.calls().some((c) => c.includes('--bg')), 'an unreadable Serve config is never overwritten');
  });

  it('no tailscale at all: C1 fails and says to install it', async () => {
    const hub = await startHubProcess({ env: { PATH: '/nonexistent-for-test' } });
    started.push(hub);
    const d = await doctor(hub);
    assert.equal(d.checks.C1?.verdict, 'fail');
    assert.match(d.checks.C1?.found ?? '', /not on this Hub's PATH/);
    assert.match(d.checks.C1?.fix ?? '', /install Tailscale/);
  });
});
