/**
 * The Tailscale client against a fake `tailscale` executable replaying the CLI's recorded JSON
 * shapes: what the Hub learns in each state, that no state throws, and that publishing with
 * Serve never replaces someone else's entry and names the exact command when refused.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { TailscaleClient } from '../../src/tailnet/tailscale-client.js';
import { tailscaleRunner } from '../../src/tailnet/tailscale-exec.js';
import { ManualClock } from '../../src/util/clock.js';
import { fakeTailscale, fqdn, loggedOutStatus, magicDnsOffStatus, oldDaemonStatus, runningStatus, type FakeTailscaleState } from '../helpers/fake-tailscale.js';

const HUB_PORT = 5002;
const ACCOUNT = 'hubuser';

function clientFor(state: FakeTailscaleState, opts: { isRoot?: boolean } = {}) {
  const fake = fakeTailscale(state);
  const clock = new ManualClock();
  const client = new TailscaleClient({
    run: tailscaleRunner(join(fake.dir, 'tailscale')),
    clock,
    account: ACCOUNT,
    isRoot: opts.isRoot ?? false,
    hubHost: '127.0.0.1',
  });
  return { fake, clock, client };
}

const servedAt = (host: string, target: string) => ({
  TCP: { '443': { HTTPS: true } },
  Web: { [`${fqdn(host)}:443`]: { Handlers: { '/': { Proxy: target } } } },
});

describe('Tailscale status through the CLI', () => {
  it('a connected node: its MagicDNS name, the tailnet suffix and name, certificates, and the peer map with OS and online state', async () => {
    const { client } = clientFor({
      status: runningStatus('hub-a', [
        { host: 'hub-b', os: 'linux' },
        { host: 'laptop', os: 'macOS', online: false },
      ]),
    });
    const s = await client.status();
    assert.equal(s.connected, true);
    assert.equal(s.nodeFqdn, 'hub-a.tail0.ts.net');
    assert.equal(s.tailnetSuffix, 'tail0.ts.net');
    assert.equal(s.tailnetName, 'operator@example.com');
    assert.equal(s.magicDnsEnabled, true);
    assert.deepEqual(s.certDomains, ['hub-a.tail0.ts.net']);
    assert.deepEqual(
      s.peers.map((p) => [p.nodeFqdn, p.os, p.online]),
      [
        ['hub-b.tail0.ts.net', 'linux', true],
        ['laptop.tail0.ts.net', 'macOS', false],
      ],
    );
    assert.equal(s.problem, null);
  });

  it('reuses one reading for 30 s, then runs the CLI again', async () => {
    const { fake, clock, client } = clientFor({ status: runningStatus('hub-a') });
    await Promise.all([client.status(), client.status()]);
    clock.advance(29_999);
    await client.status();
    assert.equal(fake.calls().length, 1);
    clock.advance(1);
    await client.status();
    assert.equal(fake.calls().length, 2);
  });

  it('runs the CLI again after the wall clock is set back, rather than reusing the reading until the clock catches up', async () => {
    const { fake, clock, client } = clientFor({ status: runningStatus('hub-a') });
    await client.status();
    clock.advance(-2 * 3_600_000);
    await client.status();
    assert.equal(fake.calls().length, 2);
  });

  const notConnected: { name: string; state: FakeTailscaleState; problem: RegExp; answered: boolean }[] = [
    { name: 'logged out', state: { status: loggedOutStatus() }, problem: /logged out/, answered: true },
    { name: 'the daemon is not running', state: { status: null }, problem: /failed to connect to local tailscaled/, answered: false },
  ];
  for (const c of notConnected) {
    it(`${c.name}: not connected, no name, a reason in words, no exception`, async () => {
      const { client } = clientFor(c.state);
      const s = await client.status();
      assert.equal(s.connected, false);
      assert.equal(s.answered, c.answered);
      assert.equal(s.nodeFqdn, null);
      assert.deepEqual(s.peers, []);
      assert.match(s.problem ?? '', c.problem);
    });
  }

  it('a failed read is logged at warn once per distinct problem, and the recovery once at info', async () => {
    const lines: string[] = [];
    const fake = fakeTailscale({ status: null });
    const clock = new ManualClock();
    const client = new TailscaleClient({
      run: tailscaleRunner(join(fake.dir, 'tailscale')),
      clock,
      account: ACCOUNT,
      isRoot: false,
      hubHost: '127.0.0.1',
      logger: pino({ level: 'info' }, { write: (l: string) => void lines.push(l) }),
    });
    await client.status();
    clock.advance(30_000);
    await client.status();
    assert.equal(lines.filter((l) => l.includes('not connected to a tailnet')).length, 1);
    assert.match(lines[0] ?? '', /"level":40.*failed to connect to local tailscaled/);
    fake.set({ status: runningStatus('hub-a') });
    clock.advance(30_000);
    await client.status();
    assert.ok(lines.some((l) => l.includes('Tailscale is connected')));
    assert.equal(lines.length, 2);
  });

  it('no tailscale on PATH: not connected, and the reason says so', async () => {
    const client = new TailscaleClient({ run: tailscaleRunner(null), clock: new ManualClock(), account: ACCOUNT, isRoot: false, hubHost: '127.0.0.1' });
    const s = await client.status();
    assert.equal(s.connected, false);
    assert.match(s.problem ?? '', /not on this Hub's PATH/);
    assert.equal((await client.serve(null, HUB_PORT)).verdict, 'unknown');
  });

  it('MagicDNS off: connected, MagicDNS reported off, no certificate names', async () => {
    const { client } = clientFor({ status: magicDnsOffStatus('hub-a') });
    const s = await client.status();
    assert.equal(s.connected, true);
    assert.equal(s.magicDnsEnabled, false);
    assert.deepEqual(s.certDomains, []);
  });

  it('an old daemon: the suffix from the top-level MagicDNSSuffix; MagicDNS and certificates unknown (null), not "off"', async () => {
    const { client } = clientFor({ status: oldDaemonStatus('hub-a'), serveJson: false });
    const s = await client.status();
    assert.equal(s.tailnetSuffix, 'tail0.ts.net');
    assert.equal(s.magicDnsEnabled, null);
    assert.equal(s.certDomains, null);
    const serve = await client.serve(s.nodeFqdn, HUB_PORT);
    assert.equal(serve.verdict, 'unknown');
    assert.match(serve.problem ?? '', /too old/);
  });
});

describe('Tailscale Serve', () => {
  it('no Serve entry: absent; publishing adds one for the Hub port, after which Serve publishes the Hub', async () => {
    const { fake, client } = clientFor({ status: runningStatus('hub-a'), serve: {}, operatorUser: ACCOUNT });
    assert.equal((await client.serve('hub-a.tail0.ts.net', HUB_PORT)).verdict, 'absent');
    assert.deepEqual(await client.publish(HUB_PORT), { kind: 'published' });
    assert.ok(fake.calls().some((c) => c.join(' ') === `serve --bg --yes --https=443 http://127.0.0.1:${HUB_PORT}`));
    assert.equal((await client.serve('hub-a.tail0.ts.net', HUB_PORT)).verdict, 'publishes');
    assert.deepEqual(await client.publish(HUB_PORT), { kind: 'already' });
  });

  it("Serve refused: the outcome names the one-time operator command for the Hub's own account, and the operator check fails with it", async () => {
    const { client } = clientFor({ status: runningStatus('hub-a'), serve: {}, serveRefused: true });
    const outcome = await client.publish(HUB_PORT);
    assert.equal(outcome.kind, 'refused');
    assert.equal(outcome.kind === 'refused' ? outcome.command : null, `sudo tailscale set --operator=${ACCOUNT}`);
    assert.equal(outcome.kind === 'refused' ? outcome.publishCommand : null, `tailscale serve --bg --yes --https=443 http://127.0.0.1:${HUB_PORT}`);
    const operator = await client.operator();
    assert.equal(operator.allowed, false);
    assert.equal(operator.command, `sudo tailscale set --operator=${ACCOUNT}`);
  });

  it('another handler already at https://<name>/: reported as a conflict and left in place', async () => {
    const { fake, client } = clientFor({ status: runningStatus('hub-a'), serve: servedAt('hub-a', 'http://127.0.0.1:8080') });
    const outcome = await client.publish(HUB_PORT);
    assert.equal(outcome.kind, 'conflict');
    assert.equal(outcome.kind === 'conflict' ? outcome.otherTarget : null, 'http://127.0.0.1:8080');
    assert.ok(!fake.calls().some((c) => c.includes('--bg')), 'serve --bg must not run');
    assert.deepEqual(fake.state().serve, servedAt('hub-a', 'http://127.0.0.1:8080'));
  });

  it('an old daemon whose Serve config cannot be read is not published blindly', async () => {
    const { fake, client } = clientFor({ status: oldDaemonStatus('hub-a'), serveJson: false });
    const outcome = await client.publish(HUB_PORT);
    assert.equal(outcome.kind, 'failed');
    assert.ok(!fake.calls().some((c) => c.includes('--bg')));
  });

  it('logged out: nothing to publish at, and the reason', async () => {
    const { client } = clientFor({ status: loggedOutStatus() });
    const outcome = await client.publish(HUB_PORT);
    assert.equal(outcome.kind, 'not-connected');
  });
});

describe('Tailscale operator permission', () => {
  const cases: { name: string; state: FakeTailscaleState; isRoot?: boolean; allowed: boolean | null; command: string | null }[] = [
    { name: "the Hub's account is the operator", state: { status: runningStatus('hub-a'), operatorUser: ACCOUNT }, allowed: true, command: null },
    {
      name: 'another account is the operator',
      state: { status: runningStatus('hub-a'), operatorUser: 'someone' },
      allowed: false,
      command: `sudo tailscale set --operator=${ACCOUNT}`,
    },
    { name: 'no operator is set', state: { status: runningStatus('hub-a') }, allowed: false, command: `sudo tailscale set --operator=${ACCOUNT}` },
    { name: 'the Hub runs as root', state: { status: runningStatus('hub-a') }, isRoot: true, allowed: true, command: null },
    {
      name: 'preferences cannot be read (old CLI)',
      state: { status: runningStatus('hub-a'), debugPrefs: false },
      allowed: null,
      command: `sudo tailscale set --operator=${ACCOUNT}`,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: allowed ${String(c.allowed)}`, async () => {
      const { client } = clientFor(c.state, { isRoot: c.isRoot });
      const operator = await client.operator();
      assert.equal(operator.allowed, c.allowed);
      assert.equal(operator.command, c.command);
    });
  }
});
