/**
 * A paired peer's request under another spelling of its path, against a real Hub. The router
 * decodes percent-escapes before it matches a route, so /api/inference/pool/%70air/unpair
 * reaches /pair/unpair. A signature on a control route must cover its body whatever spelling
 * reached it: a signature made as if the route took no body, then sent with a body it never
 * saw, is refused and changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, sign as cryptoSign } from 'node:crypto';
import { canonicalRequest } from '../../src/peer-auth/canonical.js';
import {
  HEADER_NODE,
  HEADER_NONCE,
  HEADER_PEER,
  HEADER_RECIPIENT,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  SIGNATURE_PREFIX,
} from '../../src/peer-auth/signed-headers.js';
import { FakePeer, POOL, fqdn, pairFakeWithPin, peerNamed, reservePorts, send, startNamedHub, type HubProcess } from './pairing-fixtures.js';

/** Signed headers whose signature leaves the body out, as a signer does on a route that takes none. */
function signedWithoutBody(fake: FakePeer, recipient: string, method: string, path: string): Record<string, string> {
  const timestamp = String(Date.now());
  const nonce = randomBytes(16).toString('base64url');
  const data = canonicalRequest({ method, path, senderUuid: fake.uuid, senderFqdn: fake.name, recipientUuid: recipient, timestamp, nonce, bodyHash: null });
  return {
    [HEADER_NODE]: fake.uuid,
    [HEADER_PEER]: fake.name,
    [HEADER_RECIPIENT]: recipient,
    [HEADER_TIMESTAMP]: timestamp,
    [HEADER_NONCE]: nonce,
    [HEADER_SIGNATURE]: `${SIGNATURE_PREFIX}${cryptoSign(null, data, fake.privateKey).toString('base64url')}`,
  };
}

describe('a control route reached under a percent-encoded spelling of its path', () => {
  let hub: HubProcess;
  const spellings = [`${POOL}/%70air/unpair`, `${POOL}/p%61ir/unpair`];
  const fakes = spellings.map((_, i) => new FakePeer(`fake-spelling-${i}`));
  let hubUuid = '';

  before(async () => {
    for (const fake of fakes) await fake.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('hub-spellings'), port: ports.hub, origins: Object.fromEntries(fakes.map((f) => [f.name, f.origin])) });
    for (const fake of fakes) ({ hubUuid } = await pairFakeWithPin(hub, fake));
  });
  after(async () => {
    await hub?.stop();
    for (const fake of fakes) await fake.close();
  });

  spellings.forEach((path, i) => {
    it(`refuses ${path} with a body its signature does not cover, and still takes it signed with the body`, async () => {
      const fake = fakes[i]!;
      const body = { unsigned: 'bytes the signature never saw' };
      const forged = await send(hub.url, 'POST', path, { headers: signedWithoutBody(fake, hubUuid, 'POST', path), body });
      assert.equal(forged.status, 401, forged.text);
      assert.equal((await peerNamed(hub, fake.name))?.status, 'connected', 'the unbound unpair removed nothing');

      const genuine = await fake.signed(hub, { recipient: hubUuid, method: 'POST', path, body });
      assert.equal(genuine.status, 200, genuine.text);
      assert.equal(await peerNamed(hub, fake.name), null, 'the same request with its body signed is taken');
    });
  });
});
