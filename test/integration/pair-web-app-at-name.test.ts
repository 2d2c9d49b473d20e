/**
 * The name an operator pairs with serves a web app, not a Hub (a NAS page with an SPA fallback
 * that answers 200 to any path). A real Hub sends it the pairing request, with and without a
 * PIN, and tells the operator that no Hub answered there instead of keeping a request that waits
 * a day for an approval, or reading the page as an older Hub's answer. A request that claims the
 * name, approved, is a failed call back (half paired), not a confirmed pairing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { approve, fqdn, isAlive, peers, POOL, reservePorts, send, startNamedHub, type HubProcess } from './pairing-fixtures.js';

const WEB = fqdn('nas');

describe('pairing with a name that serves a web app', () => {
  let web: Server;
  let hub: HubProcess;

  before(async () => {
    web = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>NAS</body></html>');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const ports = await reservePorts(['hub']);
    const origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    hub = await startNamedHub({ name: fqdn('hub-a'), port: ports.hub, origins: { [WEB]: origin } });
  });

  after(async () => {
    await hub?.stop();
    web?.closeAllConnections();
    await new Promise<void>((resolve) => web?.close(() => resolve()));
  });

  it('approving a request that claims the name: the call back is failed, not confirmed', async () => {
    const asked = await send(hub.url, 'POST', `${POOL}/pair/request`, { body: { fromNodeFqdn: WEB, token: randomBytes(32).toString('base64url') } });
    assert.equal(asked.status, 200, asked.text);
    const approved = await approve(hub, WEB);
    assert.equal(approved.callback, 'failed', JSON.stringify(approved));
    assert.match(approved.reason ?? '', /HTTP 200 without a confirmation answer/);
    const row = (await peers(hub)).find((p) => p.nodeFqdn === WEB);
    assert.ok(row?.pairingProblem, 'status names the half pairing');
    assert.equal((await hub.api('DELETE', `${POOL}/peers/${row.id}`)).status, 200);
  });

  for (const pin of [undefined, '123456']) {
    it(`${pin === undefined ? 'without' : 'with'} a PIN: answers that no Hub answered there, and keeps no request`, async () => {
      const res = await hub.api<{ error: { code: string; message: string } }>('POST', `${POOL}/peers/pair`, { nodeFqdn: WEB, ...(pin ? { pin } : {}) });
      assert.equal(res.status, 502, JSON.stringify(res.json));
      assert.equal(res.json.error.code, 'HUB_ERR_PEER_UNREACHABLE');
      assert.match(res.json.error.message, /something other than a Hub answered at https:\/\/nas\.tail0\.ts\.net/);
      assert.deepEqual(await peers(hub), []);
      assert.ok(isAlive(hub));
    });
  }
});
