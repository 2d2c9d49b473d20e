/**
 * A pairing request with a wrong PIN creates nothing on the Hub it reaches, not even that Hub's
 * own pool identity: a Hub that never pooled stays without a key however many strangers guess
 * (docs/peer-protocol.md, "Identity"). A request without a PIN is another matter: it is stored,
 * with its token sealed under the key, so it is the first pairing call and mints one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakePeer, fqdn, peers, reservePorts, startNamedHub, status, type HubProcess } from './pairing-fixtures.js';

describe('a wrong PIN mints no identity', () => {
  let hub: HubProcess;
  before(async () => {
    const { a } = await reservePorts(['a']);
    hub = await startNamedHub({ name: fqdn('hub-a'), port: a, origins: {} });
  });
  after(async () => {
    await hub?.stop();
  });

  it('refuses a guessed PIN on a Hub that never pooled and leaves it without a key', async () => {
    assert.equal((await status(hub)).localNode.identity, null, 'a fresh Hub has no identity');
    const refused = await new FakePeer('stranger').requestPairing(hub, '123456');
    assert.equal(refused.status, 401, refused.text);
    assert.equal(refused.json.error.code, 'HUB_ERR_PAIR_PIN_REFUSED');
    assert.equal((await status(hub)).localNode.identity, null, 'the refused request minted nothing');
    assert.deepEqual(await peers(hub), []);
  });

  it('still mints one for a request without a PIN, which it stores', async () => {
    const taken = await new FakePeer('asker').requestPairing(hub);
    assert.equal(taken.status, 200, taken.text);
    assert.ok((await status(hub)).localNode.identity?.nodeUuid, 'the stored request sealed its token under a new key');
    assert.equal((await peers(hub)).length, 1);
  });
});
