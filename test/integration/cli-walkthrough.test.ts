/**
 * The CLI walkthrough of "Set up with the CLI", end to end between three real Hub processes
 * that learn their names from a fake `tailscale` on PATH (no HUB_NODE_FQDN): doctor, discover,
 * pair by name with a PIN, approve on the other Hub, discover again (the paired Hub is gone from
 * the list), then probe and pair by address with a Hub no directory names, and approve.
 * HUB_POOL_PEER_ORIGINS stands in for the tailnet's routing: names and one LAN address are
 * dialled at loopback ports.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Discovery } from '../../src/discovery/discovery-service.js';
import type { PeerView } from '../../src/peers/peer-view.js';
import { eventually, freePort, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { fakeTailscale, fqdn, runningStatus, type FakeDevice } from '../helpers/fake-tailscale.js';
import { startTogether } from '../helpers/start-together.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');
const C = fqdn('hub-c');
const LAPTOP = fqdn('laptop');
/** hub-c's LAN address: no directory on hub-a names hub-c, so it is paired with by address. */
const C_ADDRESS = '192.168.77.12';

async function ok(hub: HubProcess, ...args: string[]): Promise<string> {
  const run = await runCli(args, { dataDir: hub.dataDir });
  assert.equal(run.code, 0, `cihub ${args.join(' ')} failed:\n${run.stderr}\n${run.stdout}`);
  return run.stdout;
}

async function mintPin(hub: HubProcess): Promise<string> {
  const minted = await ok(hub, 'pool', 'pairing-pin', '--yes');
  const pin = /Pairing PIN: (\d{6})$/m.exec(minted)?.[1];
  assert.ok(pin, minted);
  return pin;
}

async function approveFrom(receiver: HubProcess, requester: string): Promise<void> {
  const rows = JSON.parse(await ok(receiver, 'pool', 'peers', '--json')) as { peers: PeerView[] };
  const row = rows.peers.find((p) => p.nodeFqdn === requester);
  assert.deepEqual([row?.direction, row?.status], ['inbound', 'pending'], `the request from ${requester} waits on the receiver`);
  assert.match(await ok(receiver, 'pool', 'approve', requester, '--yes'), /confirmed the pairing/);
}

async function connected(hub: HubProcess, peer: string): Promise<void> {
  await eventually(async () => {
    const rows = JSON.parse(await ok(hub, 'pool', 'peers', '--json')) as { peers: PeerView[] };
    return rows.peers.some((p) => p.nodeFqdn === peer && p.status === 'connected');
  }, `${peer} connected`);
}

describe("the guide's CLI walkthrough between real Hubs", () => {
  let a: HubProcess;
  let b: HubProcess;
  let c: HubProcess;
  let laptop: Server;
  /** Requests the non-Hub machine received: only discover may contact it. */
  let laptopHits = 0;

  before(async () => {
    // A machine on the tailnet that is not a Hub: it answers, but not /identify.
    laptop = createServer((_req, res) => {
      laptopHits += 1;
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => laptop.listen(0, '127.0.0.1', resolve));
    const [pa, pb, pc] = [await freePort(), await freePort(), await freePort()];
    const origins = [
      `${A}=http://127.0.0.1:${pa}`,
      `${B}=http://127.0.0.1:${pb}`,
      `${C}=http://127.0.0.1:${pc}`,
      `${LAPTOP}=http://127.0.0.1:${(laptop.address() as { port: number }).port}`,
      `${C_ADDRESS}:5002=http://127.0.0.1:${pc}`,
    ].join(',');
    const hub = (self: string, port: number, peers: FakeDevice[]) => {
      const fake = fakeTailscale({ status: runningStatus(self, peers), serve: {} });
      return startHubProcess({ port, env: { PATH: fake.path, HUB_POOL_PEER_ORIGINS: origins } });
    };
    [a, b, c] = await startTogether([
      hub('hub-a', pa, [
        { host: 'hub-b', os: 'linux' },
        { host: 'laptop', os: 'macOS', online: false },
      ]),
      hub('hub-b', pb, [{ host: 'hub-a' }]),
      hub('hub-c', pc, [{ host: 'hub-a' }]),
    ]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
    await new Promise<void>((resolve) => laptop.close(() => resolve()));
  });

  it('doctor, discover, pair by name with a PIN, approve; then probe, pair by address, approve', async () => {
    // On hub-a: can this Hub pool? It named itself from Tailscale and published itself with Serve.
    await eventually(async () => (await runCli(['pool', 'doctor'], { dataDir: a.dataDir })).code === 0, 'doctor to pass on hub-a');
    const doctor = await ok(a, 'pool', 'doctor');
    assert.match(doctor, /✓ C1\s+tailnet name hub-a\.tail0\.ts\.net/);
    assert.match(doctor, /✓ C2\s+Tailscale Serve publishes this Hub/);

    // Nothing on a polling path contacts unpaired devices: status, peers and doctor did not.
    await ok(a, 'pool', 'status');
    await ok(a, 'pool', 'peers');
    assert.equal(laptopHits, 0);

    // Discover: hub-b is offered with its OS and online chips; the laptop did not answer as a Hub.
    const listed = await ok(a, 'pool', 'discover');
    assert.match(listed, /^1 Hub you can pair with:$/m);
    assert.match(listed, /^ {2}hub-b\.tail0\.ts\.net\s+linux\s+online/m);
    assert.match(listed, /^ {2}laptop\.tail0\.ts\.net\s+macOS\s+offline\s+HTTP 404/m);
    assert.equal(laptopHits, 1, 'one /identify probe per run');
    assert.doesNotMatch(listed, /hub-a\.tail0\.ts\.net/, 'this Hub never lists itself');
    const found = JSON.parse(await ok(a, 'pool', 'discover', '--json')) as Discovery;
    assert.deepEqual(
      found.candidates.map((x) => [x.nodeFqdn, x.os, x.online, x.poolProtocol]),
      [[B, 'linux', true, 2]],
    );

    // Pair by name: the PIN is minted on hub-b, used on hub-a; hub-b approves.
    const pinB = await mintPin(b);
    assert.match(await ok(a, 'pool', 'pair', B, '--pin', pinB, '--yes'), new RegExp(`^Pairing request sent to ${B.replaceAll('.', '\\.')}\\.$`, 'm'));
    // A Hub with a request still waiting leaves the list too: discovery offers only Hubs with no row here.
    const waiting = JSON.parse(await ok(a, 'pool', 'discover', '--json')) as Discovery;
    assert.deepEqual(waiting.candidates, []);
    assert.equal(waiting.excludedPaired, 1);
    await approveFrom(b, A);
    await connected(a, B);
    await connected(b, A);

    // A paired Hub leaves the list, before anything is probed.
    const after = JSON.parse(await ok(a, 'pool', 'discover', '--json')) as Discovery;
    assert.deepEqual(after.candidates, []);
    assert.equal(after.excludedPaired, 1);

    // Pair by address with hub-c, which no directory on hub-a names.
    assert.ok(!found.candidates.some((x) => x.nodeFqdn === C) && !found.notHubs.some((x) => x.nodeFqdn === C));
    const pinC = await mintPin(c);
    assert.match(await ok(a, 'pool', 'probe', C_ADDRESS), /^A Hub answers at 192\.168\.77\.12:5002 \(pool protocol 2\)/);
    assert.match(await ok(a, 'pool', 'pair', C_ADDRESS, '--pin', pinC, '--yes'), new RegExp(`named itself ${C.replaceAll('.', '\\.')}`));
    await approveFrom(c, A);
    await connected(a, C);
    await connected(c, A);

    // Both pairings stand on hub-a, each keyed on the peer's tailnet name.
    const rows = (JSON.parse(await ok(a, 'pool', 'peers', '--json')) as { peers: PeerView[] }).peers;
    assert.deepEqual(rows.map((p) => [p.nodeFqdn, p.status]).sort(), [
      [B, 'connected'],
      [C, 'connected'],
    ]);
  });
});
