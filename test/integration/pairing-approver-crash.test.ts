/**
 * An approving Hub killed while its approval's callback is out, on real Hub processes. hub-b
 * dials hub-a through a door the test holds: the confirmation reaches it and is never answered,
 * and at that moment hub-b is killed with SIGKILL. Started again from the same data, hub-b must
 * say it is half paired, with the fix, as it does when the callback fails while it runs; hub-a,
 * still waiting, says the same from its side once hub-b's first poll reaches it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { POOL, eventually, fqdn, mintPin, peerNamed, reservePorts, startNamedHub, type HubProcess } from './pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');

/** A door to nowhere: it tells when a confirmation arrives and never answers anything. */
async function holdingDoor(): Promise<{ server: Server; origin: string; confirmArrived: Promise<void> }> {
  let arrived!: () => void;
  const confirmArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((req) => {
    if (req.method === 'POST' && req.url === `${POOL}/pair/confirm`) arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, confirmArrived };
}

describe('an approving Hub killed before its callback completes', () => {
  let hubA: HubProcess;
  let hubB: HubProcess;
  let door: Awaited<ReturnType<typeof holdingDoor>>;

  before(async () => {
    door = await holdingDoor();
  });
  after(async () => {
    await Promise.all([hubA, hubB].filter(Boolean).map((h) => h.stop()));
    door.server.closeAllConnections();
    door.server.close();
  });

  it('comes back half paired with the fix, and the requester says the same', async () => {
    const ports = await reservePorts(['a', 'b']);
    const realA = `http://127.0.0.1:${ports.a}`;
    [hubA, hubB] = await startTogether([
      startNamedHub({ name: A, port: ports.a, origins: { [B]: `http://127.0.0.1:${ports.b}` } }),
      startNamedHub({ name: B, port: ports.b, origins: { [A]: door.origin } }),
    ]);
    const asked = await hubA.api('POST', `${POOL}/peers/pair`, { nodeFqdn: B, pin: (await mintPin(hubB)).pin });
    assert.equal(asked.status, 200, JSON.stringify(asked.json));

    const request = await peerNamed(hubB, A);
    assert.ok(request);
    const approving = hubB.api('POST', `${POOL}/peers/${request.id}/approve`).catch((err: unknown) => err);
    await door.confirmArrived;
    await hubB.stop('SIGKILL');
    assert.ok((await approving) instanceof Error, 'the approval never answered: its Hub died first');

    hubB = await startNamedHub({ name: B, port: ports.b, origins: { [A]: realA }, dataDir: hubB.dataDir });
    const approver = await peerNamed(hubB, A);
    assert.equal(approver?.direction, 'inbound');
    assert.notEqual(approver?.status, 'pending', 'the approval stands');
    assert.equal(approver?.pairingProblem?.kind, 'half_paired_here', JSON.stringify(approver));
    assert.match(approver!.pairingProblem!.action, new RegExp(`cihub pool unpair ${A.replace(/\./g, '\\.')} here`));

    const requester = await eventually(async () => {
      const p = await peerNamed(hubA, B);
      return p?.pairingProblem ? p : null;
    }, 'hub-a to see hub-b act on an approval it never received');
    assert.equal(requester.status, 'pending');
    assert.equal(requester.pairingProblem?.kind, 'half_paired_there');
  });
});
