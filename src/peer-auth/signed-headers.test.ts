import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { bodyHash, canonicalRequest } from './canonical.js';
import { isSignedRequest, signRequest, SIGNATURE_PREFIX } from './signed-headers.js';

const alice = generateKeyPairSync('ed25519');
const base = {
  sign: (data: Buffer) => sign(null, data, alice.privateKey),
  senderUuid: '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7',
  senderFqdn: 'alpha.tail1234.ts.net',
  recipientUuid: '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3',
  method: 'post',
  path: '/api/inference/pool/pair/confirm',
  body: Buffer.from('{"token":"t"}'),
  nowMs: 1796040000000,
};

describe('signRequest', () => {
  it('returns exactly the six headers, lower-cased, with the sender, recipient, unix-ms timestamp and nonce in the clear', () => {
    const headers = signRequest({ ...base, nonce: 'AAECAwQFBgcICQoLDA0ODw' });
    assert.deepEqual(Object.keys(headers).sort(), [
      'x-hub-pool-node',
      'x-hub-pool-nonce',
      'x-hub-pool-peer',
      'x-hub-pool-recipient',
      'x-hub-pool-signature',
      'x-hub-pool-timestamp',
    ]);
    assert.equal(headers['x-hub-pool-node'], base.senderUuid);
    assert.equal(headers['x-hub-pool-peer'], base.senderFqdn);
    assert.equal(headers['x-hub-pool-recipient'], base.recipientUuid);
    assert.equal(headers['x-hub-pool-timestamp'], '1796040000000');
    assert.equal(headers['x-hub-pool-nonce'], 'AAECAwQFBgcICQoLDA0ODw');
  });

  it('signs the canonical bytes, including the body hash on /pair/*', () => {
    const headers = signRequest({ ...base, nonce: 'AAECAwQFBgcICQoLDA0ODw' });
    const signature = headers['x-hub-pool-signature'] ?? '';
    assert.ok(signature.startsWith(SIGNATURE_PREFIX));
    const data = canonicalRequest({ ...base, timestamp: '1796040000000', nonce: 'AAECAwQFBgcICQoLDA0ODw', bodyHash: bodyHash(base.body) });
    assert.ok(verify(null, data, alice.publicKey, Buffer.from(signature.slice(SIGNATURE_PREFIX.length), 'base64url')));
  });

  it('draws a fresh 16-byte base64url nonce for every request', () => {
    const a = signRequest(base)['x-hub-pool-nonce'] ?? '';
    const b = signRequest(base)['x-hub-pool-nonce'] ?? '';
    assert.match(a, /^[A-Za-z0-9_-]{22}$/);
    assert.notEqual(a, b);
  });
});

describe('isSignedRequest', () => {
  it('is true for a signed request, and for one carrying any signed-only header', () => {
    assert.equal(isSignedRequest(signRequest(base)), true);
    assert.equal(isSignedRequest({ 'x-hub-pool-recipient': base.recipientUuid }), true);
    assert.equal(isSignedRequest({ 'x-hub-pool-signature': 'v1.ed25519.x' }), true);
  });

  it('is false for a bearer request, which carries only the peer name and a token', () => {
    assert.equal(isSignedRequest({ 'x-hub-pool-peer': base.senderFqdn, authorization: 'Bearer abc' }), false);
  });
});
