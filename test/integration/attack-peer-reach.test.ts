/**
 * What a paired peer's credentials open on a real Hub, tried the way a hostile peer would: its
 * signature and the bearer token this Hub issued it, on operator routes, on another method, and
 * replayed under another spelling of the path it signed. Each is refused, and the genuine signed
 * request still answers, so the refusals are about reach, not about broken credentials.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { FakePeer, POOL, fqdn, pairFakeWithoutPin, pairFakeWithPin, reservePorts, send, startNamedHub, type HubProcess } from './pairing-fixtures.js';

const CAPS = `${POOL}/capabilities`;
/** Operator routes a peer has no business reading or changing, with the body each write carries. */
const OPERATOR_CALLS: ReadonlyArray<readonly [string, string, unknown?]> = [
  ['GET', `${POOL}/status`],
  ['GET', `${POOL}/settings`],
  ['PATCH', `${POOL}/settings`, { poolEnabled: false }],
  ['GET', `${POOL}/peers`],
  ['POST', `${POOL}/pairing-pin`, {}],
  ['GET', '/api/hub/api-keys'],
  ['POST', '/api/hub/api-keys', { name: 'from-a-peer', scope: 'inference' }],
  ['GET', `${POOL}/routing-log`],
];

describe("a paired peer's credentials outside the peer routes", () => {
  let hub: HubProcess;
  const signer = new FakePeer('reach-signer');
  const bearer = new FakePeer('reach-bearer');
  let hubUuid = '';
  let issuedToken = '';

  before(async () => {
    await Promise.all([signer.start(), bearer.start()]);
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('hub-reach'), port: ports.hub, origins: { [signer.name]: signer.origin, [bearer.name]: bearer.origin } });
    ({ hubUuid } = await pairFakeWithPin(hub, signer));
    ({ issuedToken } = await pairFakeWithoutPin(hub, bearer));
  });
  after(async () => {
    await hub?.stop();
    await Promise.all([signer.close(), bearer.close()]);
  });

  for (const [method, path, body] of OPERATOR_CALLS) {
    it(`${method} ${path} is refused 401 with a valid peer signature and with the peer's bearer token`, async () => {
      const signed = await signer.signed(hub, { recipient: hubUuid, method, path, ...(body === undefined ? {} : { body }) });
      assert.equal(signed.status, 401, signed.text);
      const asBearer = await bearer.bearer(hub, issuedToken, method, path, body);
      assert.equal(asBearer.status, 401, asBearer.text);
    });
  }

  it('a signature made for GET is refused on HEAD of the same path', async () => {
    const headers = signer.sign({ recipient: hubUuid, method: 'GET', path: CAPS });
    assert.equal((await send(hub.url, 'HEAD', CAPS, { headers })).status, 401);
  });

  it('a signature for one spelling of a path is refused on another the router would match the same way', async () => {
    const nonce = randomBytes(16).toString('base64url');
    const headers = signer.sign({ recipient: hubUuid, method: 'GET', path: CAPS, nonce });
    assert.equal((await send(hub.url, 'GET', `${POOL}/%63apabilities`, { headers })).status, 401);
    const genuine = await send(hub.url, 'GET', CAPS, { headers });
    assert.equal(genuine.status, 200, `the same headers on the path they were made for: ${genuine.text}`);
  });

  it("after every peer's try: no API key, no pairing PIN, and pooling still on", async () => {
    const keys = await hub.api<{ keys: unknown[] }>('GET', '/api/hub/api-keys');
    assert.deepEqual(keys.json.keys, []);
    const status = await hub.api<{ pairingPin: { active: boolean } }>('GET', `${POOL}/status`);
    assert.equal(status.json.pairingPin.active, false);
    const settings = await hub.api<{ poolEnabled: boolean }>('GET', `${POOL}/settings`);
    assert.equal(settings.json.poolEnabled, true);
  });
});
