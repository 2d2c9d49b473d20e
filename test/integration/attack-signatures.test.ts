/**
 * Truncated and mangled signed-request headers against a real Hub (issue 15, item 2). The
 * replay, re-address, skew, forgery and bearer-after-signing attacks are in
 * pairing-attacks.test.ts; this file cuts a genuine request's headers short the way a broken
 * or hostile hop would: the signature at every interesting length, its prefix alone, padded,
 * re-encoded, and each of the other five headers shortened by one character. Every one is
 * refused 401 and changes nothing, and none spends the nonce it carried: the genuine request
 * with that nonce is accepted afterwards.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HEADER_NODE, HEADER_NONCE, HEADER_PEER, HEADER_RECIPIENT, HEADER_SIGNATURE, HEADER_TIMESTAMP } from '../../src/peer-auth/signed-headers.js';
import { FakePeer, fqdn, pairFakeWithPin, peerNamed, POOL, reservePorts, send, startNamedHub, type HubProcess } from './pairing-fixtures.js';

const HUB = fqdn('hub-sig');
const CAPS = `${POOL}/capabilities`;
const UNPAIR = `${POOL}/pair/unpair`;

describe('signed requests cut short or mangled', () => {
  let hub: HubProcess;
  const fake = new FakePeer('fake-truncator');
  let hubUuid = '';

  before(async () => {
    await fake.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: HUB, port: ports.hub, origins: { [fake.name]: fake.origin } });
    ({ hubUuid } = await pairFakeWithPin(hub, fake));
  });
  after(async () => {
    await hub?.stop();
    await fake.close();
  });

  /** Sends `method path` with the genuine headers for it, spoiled by `spoil`; returns the status. */
  async function spoiled(method: 'GET' | 'POST', path: string, nonce: string, spoil: (h: Record<string, string>) => void): Promise<number> {
    const body = method === 'POST' ? {} : undefined;
    const headers = fake.sign({ recipient: hubUuid, method, path, nonce, ...(body === undefined ? {} : { body }) });
    spoil(headers);
    return (await send(hub.url, method, path, { headers, ...(body === undefined ? {} : { body }) })).status;
  }

  const signature = (h: Record<string, string>) => h[HEADER_SIGNATURE]!;
  const encoded = (h: Record<string, string>) => signature(h).slice('v1.ed25519.'.length);
  const cuts: [string, (h: Record<string, string>) => void][] = [
    ['an empty signature', (h) => void (h[HEADER_SIGNATURE] = '')],
    ['the scheme prefix alone', (h) => void (h[HEADER_SIGNATURE] = 'v1.ed25519.')],
    ['the prefix without its last dot', (h) => void (h[HEADER_SIGNATURE] = 'v1.ed25519')],
    ['one character of signature', (h) => void (h[HEADER_SIGNATURE] = signature(h).slice(0, 'v1.ed25519.'.length + 1))],
    ['half the signature', (h) => void (h[HEADER_SIGNATURE] = `v1.ed25519.${encoded(h).slice(0, 43)}`)],
    ['the signature less its last character', (h) => void (h[HEADER_SIGNATURE] = signature(h).slice(0, -1))],
    ['the signature with a character added', (h) => void (h[HEADER_SIGNATURE] = `${signature(h)}A`)],
    ['the signature with base64 padding', (h) => void (h[HEADER_SIGNATURE] = `${signature(h)}==`)],
    ['the signature in standard base64', (h) => void (h[HEADER_SIGNATURE] = `v1.ed25519.${Buffer.from(encoded(h), 'base64url').toString('base64')}`)],
    [
      'the signature bytes cut to 63 of 64',
      (h) => void (h[HEADER_SIGNATURE] = `v1.ed25519.${Buffer.from(encoded(h), 'base64url').subarray(0, 63).toString('base64url')}`),
    ],
    ['the signature with no prefix at all', (h) => void (h[HEADER_SIGNATURE] = encoded(h))],
    ['the timestamp less its last digit', (h) => void (h[HEADER_TIMESTAMP] = h[HEADER_TIMESTAMP]!.slice(0, -1))],
    ['the nonce less its last character', (h) => void (h[HEADER_NONCE] = h[HEADER_NONCE]!.slice(0, -1))],
    ['the recipient UUID less its last character', (h) => void (h[HEADER_RECIPIENT] = h[HEADER_RECIPIENT]!.slice(0, -1))],
    ['the sender UUID less its last character', (h) => void (h[HEADER_NODE] = h[HEADER_NODE]!.slice(0, -1))],
    ['the sender name less its last character', (h) => void (h[HEADER_PEER] = h[HEADER_PEER]!.slice(0, -1))],
  ];

  for (const [what, spoil] of cuts) {
    it(`refuses ${what} with 401 and does not spend the nonce`, async () => {
      const nonce = randomBytes(16).toString('base64url');
      assert.equal(await spoiled('GET', CAPS, nonce, spoil), 401, `GET /capabilities with ${what}`);
      assert.equal(await spoiled('POST', UNPAIR, randomBytes(16).toString('base64url'), spoil), 401, `POST /pair/unpair with ${what}`);
      assert.equal((await peerNamed(hub, fake.name))?.status, 'connected', 'the spoiled unpair removed nothing');
      const genuine = await fake.signed(hub, { recipient: hubUuid, method: 'GET', path: CAPS, nonce });
      assert.equal(genuine.status, 200, `the genuine request with the same nonce: ${genuine.text}`);
    });
  }

  it('refuses the signing headers with the signature left off entirely, though the peer name and a bearer-shaped token ride along', async () => {
    const headers = fake.sign({ recipient: hubUuid, method: 'GET', path: CAPS });
    delete headers[HEADER_SIGNATURE];
    const res = await send(hub.url, 'GET', CAPS, { headers: { ...headers, authorization: `Bearer ${randomBytes(32).toString('base64url')}` } });
    assert.equal(res.status, 401, res.text);
  });
});
