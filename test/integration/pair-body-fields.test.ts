/**
 * POST /api/inference/pool/peers/pair reads a name and an optional PIN, or an address and a PIN.
 * A field outside those (a misspelt `PIN`) was dropped without a word, so the request went to
 * the other Hub without its PIN, as a bare name claim; a nodeFqdn beside an address was dropped
 * the same way. Such a body is refused with 400 and nothing reaches the other Hub.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const POOL_API = '/api/inference/pool';
const OTHER = 'hub-b.tail0.ts.net';

describe('POST /peers/pair with a field it does not take', () => {
  let hub: HubProcess;
  let other: Server;
  /** Every request that reached the stand-in for the other Hub. */
  const reached: string[] = [];

  before(async () => {
    other = createServer((req, res) => {
      reached.push(`${req.method} ${req.url}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    hub = await startHubProcess({ env: { HUB_NODE_FQDN: 'hub-a.tail0.ts.net', HUB_POOL_PEER_ORIGINS: `${OTHER}=${origin}` } });
  });

  after(async () => {
    await hub.stop();
    await new Promise<void>((resolve) => other.close(() => resolve()));
  });

  it('refuses a misspelt PIN with 400 naming the field, and sends nothing', async () => {
    const res = await hub.api<{ error: { code: string; message: string } }>('POST', `${POOL_API}/peers/pair`, { nodeFqdn: OTHER, PIN: '123456' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'HUB_ERR_BAD_REQUEST');
    assert.match(res.json.error.message, /^PIN is not taken here/);
    assert.deepEqual(reached, []);
  });

  it('refuses a name and an address together, and sends nothing', async () => {
    const res = await hub.api<{ error: { code: string; message: string } }>('POST', `${POOL_API}/peers/pair`, {
      nodeFqdn: OTHER,
      address: '192.168.77.3',
      pin: '123456',
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'HUB_ERR_BAD_REQUEST');
    assert.match(res.json.error.message, /nodeFqdn and address were both given/);
    assert.deepEqual(reached, []);
  });

  it('still sends a well-formed request to the other Hub', async () => {
    const earlier = reached.length;
    const res = await hub.api<{ error: { code: string } }>('POST', `${POOL_API}/peers/pair`, { nodeFqdn: OTHER, pin: '123456' });
    assert.notEqual(res.status, 400);
    assert.deepEqual(reached.slice(earlier), [`POST ${POOL_API}/pair/request`]);
  });
});
