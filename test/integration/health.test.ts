/**
 * /healthz and /readyz on a real Hub: a supervisor reaches both without a credential, and they
 * say nothing about the pool beyond whether it is up.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

describe('health and readiness on a running Hub', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub.stop();
  });

  it('GET /healthz answers 200 alive with no credential', async () => {
    const res = await request(`${hub.url}/healthz`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(await res.body.json(), { status: 'alive' });
  });

  it('GET /readyz answers 200 with every check passing, with no credential', async () => {
    const res = await request(`${hub.url}/readyz`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(await res.body.json(), { ready: true, reasons: [], checks: { listening: true, storeOpen: true, draining: false } });
  });

  it('ignores a wrong credential rather than refusing the probe', async () => {
    const res = await request(`${hub.url}/readyz`, { headers: { authorization: 'Bearer not-a-key' } });
    assert.equal(res.statusCode, 200);
    await res.body.dump();
  });
});
