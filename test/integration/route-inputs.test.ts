/**
 * Operator routes refuse a query key or a body they would not read, on a real Hub, and the
 * refused call changes nothing (src/http/route-inputs.ts). Each of these answered 200 before,
 * as if the field had been honoured: a misspelt log filter returned every line, a PIN "ttl" was
 * dropped, a sign-in's "remember" too.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

interface ErrorBody {
  error: { code: string; message: string };
}
interface StatusBody {
  pairingPin: { active: boolean };
}

describe('operator routes: what they do not read is refused', () => {
  let hub: HubProcess;
  const pinActive = async () => (await hub.api<StatusBody>('GET', '/api/inference/pool/status')).json.pairingPin.active;

  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub?.stop();
  });

  const queries: readonly { path: string; message: RegExp }[] = [
    { path: '/api/hub/logs?levl=error&limit=1', message: /^levl is not taken here \(this route takes level, since, limit, after\)$/ },
    { path: '/api/inference/pool/routing-log?limt=5', message: /^limt is not taken here \(this route takes limit, since\)$/ },
    { path: '/api/inference/pool/status?verbose=1', message: /^verbose is not taken here \(this route takes no query\)$/ },
    { path: '/api/inference/pool/handout?model=m&mdoel=m', message: /^mdoel is not taken here \(this route takes model\)$/ },
  ];
  for (const q of queries)
    it(`refuses GET ${q.path}, naming the key`, async () => {
      const res = await hub.api<ErrorBody>('GET', q.path);
      assert.equal(res.status, 400, JSON.stringify(res.json));
      assert.equal(res.json.error.code, 'HUB_ERR_QUERY_INVALID');
      assert.match(res.json.error.message, q.message);
    });

  it('still answers the keys a route takes', async () => {
    assert.equal((await hub.api('GET', '/api/hub/logs?level=error&limit=1')).status, 200);
    assert.equal((await hub.api('GET', '/api/inference/pool/routing-log?limit=5')).status, 200);
  });

  it('refuses a body on the PIN route, and mints no PIN', async () => {
    const res = await hub.api<ErrorBody>('POST', '/api/inference/pool/pairing-pin', { ttl: 5 });
    assert.equal(res.status, 400, JSON.stringify(res.json));
    assert.match(res.json.error.message, /^this route takes no body/);
    assert.equal(await pinActive(), false);
  });

  it('reads an empty JSON object as no body', async () => {
    const res = await hub.api('POST', '/api/inference/pool/pairing-pin', {});
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(await pinActive(), true);
    assert.equal((await hub.api('DELETE', '/api/inference/pool/pairing-pin')).status, 200);
  });

  it('refuses a key beside the default pin removal, leaving the pin in place', async () => {
    const target = 'hub-z.tail0.ts.net';
    assert.equal((await hub.api('POST', '/api/inference/pool/pins', { scope: 'default', target })).status, 200);
    const res = await hub.api<ErrorBody>('DELETE', '/api/inference/pool/pins?scope=default&x=1');
    assert.equal(res.status, 400, JSON.stringify(res.json));
    const pins = await hub.api<{ pins: { scope: string }[] }>('GET', '/api/inference/pool/pins');
    assert.deepEqual(
      pins.json.pins.map((p) => p.scope),
      ['default'],
    );
  });

  it('refuses a sign-in field the session has no use for, and opens no session', async () => {
    const res = await request(`${hub.url}/api/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: hub.operatorKey, remember: true }),
    });
    const body = (await res.body.json()) as ErrorBody;
    assert.equal(res.statusCode, 400);
    assert.equal(body.error.message, 'remember is not taken here: signing in takes a key or a link only');
    assert.equal(res.headers['set-cookie'], undefined);
  });

  it('refuses a sign-in with both a key and a link, or with neither, naming the two fields', async () => {
    const link = (await hub.api<{ path: string }>('POST', '/api/hub/session/link')).json.path.split('/').pop();
    for (const credential of [{ key: hub.operatorKey, link }, {}]) {
      const res = await request(`${hub.url}/api/hub/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(credential),
      });
      const body = (await res.body.json()) as ErrorBody;
      assert.equal(res.statusCode, 400, JSON.stringify(credential));
      assert.equal(body.error.message, 'sign in with exactly one of key (the operator key or a qa:read key) or link (the token of a one-time sign-in link)');
      assert.equal(res.headers['set-cookie'], undefined);
    }
  });

  it('tells a sign-out with a body and no session that it has no session, before judging the body', async () => {
    const res = await request(`${hub.url}/api/hub/session`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ all: true }),
    });
    const body = (await res.body.json()) as ErrorBody;
    assert.equal(res.statusCode, 401, JSON.stringify(body));
    assert.equal(body.error.code, 'HUB_ERR_UNAUTHORIZED');
  });
});
