/**
 * GET /capabilities states this Hub's node UUID and public key, the pair /identify no longer
 * names (spec, "What /identify no longer says"): a paired peer reads there, behind the guard,
 * the same identity the PIN-verified pairing answer gave it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { approve, FakePeer, fqdn, mintPin, POOL, reservePorts, send, startNamedHub, type HubProcess } from './pairing-fixtures.js';

describe('the identity GET /capabilities states', () => {
  const fake = new FakePeer('fake-reader');
  let hub: HubProcess;

  before(async () => {
    await fake.start();
    const { h } = await reservePorts(['h']);
    hub = await startNamedHub({ name: fqdn('hub-h'), port: h, origins: { [fake.name]: fake.origin } });
  });
  after(async () => {
    await hub?.stop();
    await fake.close();
  });

  it("is the UUID and key the Hub's PIN-verified pairing answer carried, and only to a paired peer", async () => {
    const anonymous = await send(hub.url, 'GET', `${POOL}/capabilities`);
    assert.equal(anonymous.status, 401, anonymous.text);

    const asked = await fake.requestPairing(hub, (await mintPin(hub)).pin);
    assert.equal(asked.status, 200, asked.text);
    const answered = { nodeUuid: asked.json.nodeUuid, publicKey: asked.json.publicKey };
    assert.equal(typeof answered.publicKey, 'string');
    assert.equal((await approve(hub, fake.name)).callback, 'confirmed');

    const caps = await fake.signed(hub, { recipient: answered.nodeUuid, method: 'GET', path: `${POOL}/capabilities` });
    assert.equal(caps.status, 200, caps.text);
    assert.deepEqual({ nodeUuid: caps.json.nodeUuid, publicKey: caps.json.publicKey }, answered);
  });
});
