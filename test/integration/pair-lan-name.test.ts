/**
 * `cihub pool pair nas.invalid --pin D` on a Hub whose tailnet suffix is tail0.ts.net: a dotted
 * name outside the suffix cannot be a peer's name, so pair takes it as a LAN host name, as the
 * probe does, and never sends a request to https://nas.invalid. The development map points that
 * name at a recorder, so a request by name would be seen. `.invalid` is reserved never to
 * resolve (RFC 6761), so the address path's own DNS check refuses it before anything is dialled.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCli } from '../helpers/hub-process.js';
import { fqdn, peers, reservePorts, startNamedHub, type HubProcess } from './pairing-fixtures.js';

const LAN_NAME = 'nas.invalid';
const OTHER_TAILNET_NAME = 'hub-z.other.ts.net';

describe('pairing with a dotted name outside the tailnet suffix', () => {
  let hub: HubProcess;
  let byName: Server;
  const seenByName: string[] = [];

  before(async () => {
    byName = createServer((req, res) => {
      seenByName.push(`${req.method} ${req.url}`);
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => byName.listen(0, '127.0.0.1', resolve));
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({
      name: fqdn('hub-a'),
      port: ports.hub,
      origins: {
        [LAN_NAME]: `http://127.0.0.1:${(byName.address() as AddressInfo).port}`,
        [OTHER_TAILNET_NAME]: `http://127.0.0.1:${(byName.address() as AddressInfo).port}`,
      },
    });
  });
  after(async () => {
    await hub?.stop();
    await new Promise<void>((resolve) => byName.close(() => resolve()));
  });

  it('pairs by address: the Hub looks the name up as a LAN host, and nothing goes to it by name', async () => {
    const run = await runCli(['pool', 'pair', LAN_NAME, '--pin', '123456', '--yes'], { dataDir: hub.dataDir });
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /not dialled: nas\.invalid did not resolve .*HUB_ERR_ADDRESS_REFUSED/s);
    assert.deepEqual(seenByName, [], 'no request went to https://nas.invalid');
    assert.deepEqual(await peers(hub), []);
  });

  it('without a PIN, says why the name is an address and how a tailnet name is written, and sends nothing', async () => {
    const run = await runCli(['pool', 'pair', LAN_NAME, '--yes'], { dataDir: hub.dataDir });
    assert.equal(run.code, 2, 'a usage error');
    assert.match(
      run.stderr,
      /^nas\.invalid is not a name on this Hub's tailnet \(tail0\.ts\.net\), so it is paired with as a LAN host name; a tailnet name is written in full \(<host>\.tail0\.ts\.net\)\. Pairing by address needs --pin/,
    );
    assert.deepEqual(seenByName, []);
    assert.deepEqual(await peers(hub), []);
  });

  it('refuses a MagicDNS name on another tailnet as such, with or without a PIN: no LAN pairing is offered and nothing is sent', async () => {
    for (const pin of [['--pin', '123456'], []]) {
      const run = await runCli(['pool', 'pair', OTHER_TAILNET_NAME, ...pin, '--yes'], { dataDir: hub.dataDir });
      assert.equal(run.code, 2, 'a usage error');
      assert.equal(
        run.stderr.trim(),
        'hub-z.other.ts.net is on another tailnet (other.ts.net) than this Hub (tail0.ts.net); Hubs pair only when both are on the same tailnet, so sign both machines in to one tailnet first; nothing was sent.',
      );
    }
    assert.deepEqual(seenByName, []);
    assert.deepEqual(await peers(hub), []);
  });
});
