/**
 * poolRequireSignedPeers and a pairing made without a PIN (spec, "Upgrading an existing bearer
 * pairing" and "The PIN, and what it actually buys"). Without a PIN the two Hubs exchange keys on
 * the confirm, which goes by bearer token, and the setting refuses bearer tokens on both sides: such
 * a pairing could only ever end half paired, with advice about HTTPS that fixes nothing. So a Hub
 * with the setting on refuses it at each step it owns, and says to pair with a PIN.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakePeer, POOL, fqdn, mintPin, peerNamed, reservePorts, startNamedHub, type HubProcess } from './pairing-fixtures.js';

const HUB = fqdn('hub-b');
const ELSEWHERE = fqdn('hub-far');

describe('pairing without a PIN while poolRequireSignedPeers is on', () => {
  let hub: HubProcess;
  const early = new FakePeer('asked-before');
  const late = new FakePeer('asked-after');
  const withPin = new FakePeer('with-pin');

  const requireSigned = async (on: boolean) => assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolRequireSignedPeers: on })).status, 200);

  before(async () => {
    await Promise.all([early.start(), late.start(), withPin.start()]);
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({
      name: HUB,
      port: ports.hub,
      origins: { [early.name]: early.origin, [late.name]: late.origin, [withPin.name]: withPin.origin },
    });
    // Sent while the setting was still off: it waits for an approval the setting will not allow.
    assert.equal((await early.requestPairing(hub)).status, 200);
    await requireSigned(true);
  });

  after(async () => {
    await hub?.stop();
    await Promise.all([early.close(), late.close(), withPin.close()]);
  });

  it("refuses a peer's request that carries no PIN, keeping nothing", async () => {
    const asked = await late.requestPairing(hub);
    assert.equal(asked.status, 403, asked.text);
    assert.equal((asked.json.error as { code: string }).code, 'HUB_ERR_PAIR_PIN_REQUIRED');
    assert.match((asked.json.error as { message: string }).message, /PIN/);
    assert.equal(await peerNamed(hub, late.name), null);
  });

  it('refuses to approve a request that came without a PIN, and leaves it waiting', async () => {
    const row = await peerNamed(hub, early.name);
    assert.ok(row);
    const res = await hub.api<{ error: { code: string; message: string } }>('POST', `${POOL}/peers/${row.id}/approve`);
    assert.equal(res.status, 403, JSON.stringify(res.json));
    assert.equal(res.json.error.code, 'HUB_ERR_PAIR_PIN_REQUIRED');
    assert.match(res.json.error.message, new RegExp(`cihub pool reject ${early.name}`));
    assert.equal((await peerNamed(hub, early.name))?.status, 'pending');
    assert.equal(early.issued.length, 0, 'no confirmation went out');
  });

  it("refuses the operator's own request without a PIN, before anything is sent", async () => {
    const res = await hub.api<{ error: { code: string; message: string } }>('POST', `${POOL}/peers/pair`, { nodeFqdn: ELSEWHERE });
    assert.equal(res.status, 403, JSON.stringify(res.json));
    assert.equal(res.json.error.code, 'HUB_ERR_PAIR_PIN_REQUIRED');
    assert.match(res.json.error.message, new RegExp(`mint a PIN on ${ELSEWHERE}`));
    assert.equal(await peerNamed(hub, ELSEWHERE), null);
  });

  it('still pairs with a PIN, signed from the start', async () => {
    const { pin } = await mintPin(hub);
    assert.equal((await withPin.requestPairing(hub, pin)).status, 200);
    const row = await peerNamed(hub, withPin.name);
    assert.ok(row);
    const res = await hub.api<{ callback: string }>('POST', `${POOL}/peers/${row.id}/approve`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.callback, 'confirmed');
  });

  it('takes a request without a PIN again once the setting is off', async () => {
    await requireSigned(false);
    try {
      assert.equal((await late.requestPairing(hub)).status, 200);
    } finally {
      await requireSigned(true);
    }
  });
});
