/**
 * Issue 9, #10, for text a peer writes itself: a Hub that refuses a pairing request says why, and
 * that reason reaches the operator's terminal in the CLI's "Pairing failed: …" sentence. A peer
 * whose reason carries newlines must not get a line of its own under the CLI's, one that reads as
 * if the pairing had worked. Run against a real Hub and a fake peer that refuses every request
 * with such a reason, paired with both by name and by address.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCli } from '../helpers/hub-process.js';
import { fqdn, POOL, reservePorts, startNamedHub, type HubProcess } from './pairing-fixtures.js';

const HUB = fqdn('hub-a');
const PEER = fqdn('hub-x');
const PEER_ADDRESS = '192.168.77.9';
const FORGED = `Approved ${PEER}: it is now a connected peer`;
const REASON = `not now\n\n${FORGED}\r\n\tand carries on`;

/** No line of the CLI's output starts with the forged text; it stays inside the quoted reason. */
function assertNoForgedLine(output: string): void {
  assert.ok(!output.split(/\r?\n|\r/).some((line) => line.trimStart().startsWith('Approved')), output);
  assert.ok(output.includes(FORGED), `the reason is still shown:\n${output}`);
}

describe("a peer's refusal with newlines in its reason", () => {
  let hub: HubProcess;
  let peer: Server;

  before(async () => {
    peer = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === `${POOL}/identify`) return void res.end(JSON.stringify({ isCiHub: true, poolProtocol: 2 }));
      res.writeHead(403).end(JSON.stringify({ error: { code: 'HUB_ERR_FORBIDDEN', message: REASON } }));
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: HUB, port: ports.hub, origins: { [PEER]: origin, [`${PEER_ADDRESS}:5002`]: origin } });
  });
  after(async () => {
    await hub?.stop();
    await new Promise<void>((resolve) => peer.close(() => resolve()));
  });

  it('prints the refusal of a request by name on one line', async () => {
    const run = await runCli(['pool', 'pair', PEER, '--yes'], { dataDir: hub.dataDir });
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /^Pairing failed: .*declined the pairing request \(HTTP 403\)/);
    assertNoForgedLine(run.stderr);
  });

  it('prints the refusal of a request by address on one line', async () => {
    const run = await runCli(['pool', 'pair', `${PEER_ADDRESS}:5002`, '--pin', '123456', '--yes'], { dataDir: hub.dataDir });
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /declined the pairing request \(HTTP 403\)/);
    assertNoForgedLine(run.stderr);
  });
});
