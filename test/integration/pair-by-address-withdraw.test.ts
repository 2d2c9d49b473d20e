/**
 * Pairing by address where this Hub refuses only after the other Hub took the PIN: the other
 * Hub names itself only in its answer, by which time it has spent its PIN and stored a
 * PIN-verified request. This Hub withdraws that request before it refuses, so following the
 * refusal's advice (unpair here, a fresh PIN there, pair again) works instead of meeting a 409
 * from the request left behind.
 *
 * The case that reaches it between real Hubs: hub-b loses its data and comes back under the same
 * name with a new identity, while hub-a still holds the old pairing. 192.168.77.2:5002 stands
 * for hub-b's LAN address; the development map sends it to hub-b's loopback port.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freshDataDir, runCli } from '../helpers/hub-process.js';
import { approve, eventually, fqdn, pairHubs, peerNamed, peers, reservePorts, startNamedHub, status, waitPaired, type HubProcess } from './pairing-fixtures.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');
const B_AT = '192.168.77.2:5002';

async function pinOn(hub: HubProcess): Promise<string> {
  const minted = await runCli(['pool', 'pairing-pin', '--json', '--yes'], { dataDir: hub.dataDir });
  assert.equal(minted.code, 0, minted.stderr);
  return (JSON.parse(minted.stdout) as { pin: string }).pin;
}

describe('a refusal after the other Hub took the PIN withdraws the request there', () => {
  let ports: { a: number; b: number };
  let hubA: HubProcess;
  let hubB: HubProcess;
  const startB = (dataDir?: string) =>
    startNamedHub({ name: B, port: ports.b, origins: { [A]: `http://127.0.0.1:${ports.a}` }, ...(dataDir ? { dataDir } : {}) });

  before(async () => {
    ports = await reservePorts(['a', 'b']);
    const toB = `http://127.0.0.1:${ports.b}`;
    [hubA, hubB] = await Promise.all([startNamedHub({ name: A, port: ports.a, origins: { [B]: toB, [B_AT]: toB } }), startB()]);
    await pairHubs(hubA, A, hubB, B, { settle: 'connected' });
    // hub-b's data is lost. Stopped with SIGTERM it tells hub-a it is leaving, so hub-a's row
    // for it turns unreachable at once; it then starts again, empty, under the same name.
    await hubB.stop('SIGTERM');
    await eventually(async () => (await peerNamed(hubA, B))?.status === 'unreachable', "hub-a's row for hub-b to turn unreachable");
    hubB = await startB(freshDataDir());
  });
  after(async () => {
    await Promise.all([hubA, hubB].filter(Boolean).map((h) => h.stop()));
  });

  it('refuses over the stale row, leaves nothing waiting on the other Hub, and the advised retry pairs', async () => {
    const refused = await runCli(['pool', 'pair', B_AT, '--pin', await pinOn(hubB), '--yes'], { dataDir: hubA.dataDir });
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /this Hub already has an unreachable row for hub-b\.tail0\.ts\.net; the request was withdrawn there, and its PIN is spent/);
    assert.match(
      refused.stderr,
      /unpair it here first \(cihub pool unpair hub-b\.tail0\.ts\.net\), then mint a fresh PIN there \(cihub pool pairing-pin\) and pair again/,
    );
    assert.match(refused.stderr, /HUB_ERR_CONFLICT/);
    assert.equal((await status(hubB)).pairingPin.active, false, 'hub-b accepted the PIN, so the request did reach it');
    assert.deepEqual(await peers(hubB), [], 'hub-b holds no request from hub-a');

    const unpaired = await runCli(['pool', 'unpair', B, '--yes'], { dataDir: hubA.dataDir });
    assert.equal(unpaired.code, 0, unpaired.stderr);
    const paired = await runCli(['pool', 'pair', B_AT, '--pin', await pinOn(hubB), '--yes'], { dataDir: hubA.dataDir });
    assert.equal(paired.code, 0, paired.stderr);
    const waiting = await peerNamed(hubB, A);
    assert.equal(waiting?.status, 'pending');
    assert.equal(waiting?.pinVerified, true);
    assert.equal((await approve(hubB, A)).callback, 'confirmed');
    await waitPaired(hubA, B, hubB, A, 'connected');
  });
});
