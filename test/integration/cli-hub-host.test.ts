/**
 * A Hub told to listen on a host name or an IPv6 address (HUB_HOST or --host;
 * docs/operator-guide.md, Environment) is still found by the CLI on the same machine. hub.json
 * records the IP its socket is bound to, which the Host check always accepts (an IP literal),
 * rather than the name, which may resolve to another of the machine's addresses when the CLI
 * looks it up (how the CLI words a Host refusal: cli-stale-hub.test.ts). localhost stands for
 * any name: a machine's other names in /etc/hosts differ from host to host, and a test that
 * needs one would only skip. A wildcard bind is recorded at 127.0.0.1, which a Hub on :: takes
 * too, even on a machine whose loopback has no IPv6 (a Docker container, by default): that case
 * runs the Hub in a network namespace of its own (unshare, nsenter), so it needs root.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const LOOPBACK_ADDRESSES = ['127.0.0.1', '::1'];

function recordedUrl(hub: HubProcess): string {
  return (JSON.parse(readFileSync(join(hub.dataDir, 'hub.json'), 'utf8')) as { url: string }).url;
}

async function expectFoundByCli(hub: HubProcess, launcher?: readonly string[]): Promise<void> {
  const url = recordedUrl(hub);
  const address = new URL(url).hostname.replace(/^\[|\]$/g, '');
  assert.ok(isIP(address) !== 0 && LOOPBACK_ADDRESSES.includes(address), `hub.json names the bound loopback address, not the name: ${url}`);
  const run = await runCli(['pool', 'status', '--json'], { dataDir: hub.dataDir, ...(launcher === undefined ? {} : { launcher }) });
  assert.equal(run.code, 0, run.stderr);
}

/**
 * Runs the Hub in a network of its own whose loopback has 127.0.0.1 and no ::1, as in a container
 * with IPv6 off. unshare execs the shell, which execs node, so the Hub keeps the pid spawned.
 */
const LOOPBACK_WITHOUT_IPV6 = [
  'unshare',
  '--net',
  '--',
  'sh',
  '-c',
  'ip link set lo up && echo 1 > /proc/sys/net/ipv6/conf/lo/disable_ipv6 && exec "$@"',
  'sh',
];

/** Why this machine cannot make such a network (not root, no unshare); null when it can. */
function namespacesUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'needs root to make a network namespace';
  const probe = spawnSync(LOOPBACK_WITHOUT_IPV6[0]!, [...LOOPBACK_WITHOUT_IPV6.slice(1), 'true'], { encoding: 'utf8' });
  return probe.status === 0 ? null : `could not make a network namespace without IPv6 on loopback: ${probe.error?.message ?? probe.stderr.trim()}`;
}

describe('the CLI and a Hub listening on a host name or an IPv6 address', () => {
  const hubs: HubProcess[] = [];
  after(async () => {
    await Promise.all(hubs.map((h) => h.stop()));
  });

  it('records the address the name resolved to, and the CLI reaches the Hub there (localhost)', async () => {
    const hub = await startHubProcess({ host: 'localhost' });
    hubs.push(hub);
    await expectFoundByCli(hub);
  });

  it('records ::1 in brackets, and the CLI and its dashboard sign-in link reach the Hub there', async () => {
    const hub = await startHubProcess({ host: '::1' });
    hubs.push(hub);
    assert.match(recordedUrl(hub), /^http:\/\/\[::1\]:\d+$/);
    await expectFoundByCli(hub);
    const run = await runCli(['dashboard', '--json', '--no-open'], { dataDir: hub.dataDir });
    assert.equal(run.code, 0, run.stderr);
    const link = (JSON.parse(run.stdout) as { url: string }).url;
    assert.ok(link.startsWith(`${recordedUrl(hub)}/`), link);
    // Spent as the page spends it: a sign-in POST from the page's own origin, http://[::1]:<port>.
    const token = link.slice(link.lastIndexOf('/') + 1);
    const signIn = await request(`${recordedUrl(hub)}/api/hub/session`, {
      method: 'POST',
      headers: { origin: recordedUrl(hub), 'content-type': 'application/json' },
      body: JSON.stringify({ link: token }),
    });
    const text = await signIn.body.text();
    assert.equal(signIn.statusCode, 200, `the link signs in at [::1] from that origin: ${text}`);
    assert.ok(signIn.headers['set-cookie'] !== undefined, 'and sets the session cookie');
  });

  it('records a Hub on :: at 127.0.0.1, which its dual-stack socket takes', async () => {
    const hub = await startHubProcess({ host: '::' });
    hubs.push(hub);
    assert.match(recordedUrl(hub), /^http:\/\/127\.0\.0\.1:\d+$/);
    await expectFoundByCli(hub);
  });

  it('finds a Hub on :: on a machine whose loopback has no IPv6 (a container with IPv6 off)', async () => {
    // Root, as CI has, like the chaos tests' disks: without it this fails saying so rather than skip.
    const unavailable = namespacesUnavailable();
    assert.equal(unavailable, null, `this test ${unavailable}`);
    const hub = await startHubProcess({ host: '::', launcher: LOOPBACK_WITHOUT_IPV6 });
    hubs.push(hub);
    await expectFoundByCli(hub, ['nsenter', `--net=/proc/${hub.child.pid}/ns/net`, '--']);
  });
});
