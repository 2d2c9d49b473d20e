import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readIdentityClaim } from './identity-claim.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const nodeUuid = randomUUID();
const publicKey = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '';

/** The last character with one of the two bits the decoder drops flipped: same bytes, other text. */
function respelled(key: string, bit: 1 | 2 | 3): string {
  return key.slice(0, -1) + BASE64URL[BASE64URL.indexOf(key.at(-1)!) ^ bit];
}

describe('readIdentityClaim', () => {
  it('takes a node UUID and a raw Ed25519 key as Node writes it', () => {
    assert.deepEqual(readIdentityClaim({ nodeUuid, publicKey }), { nodeUuid, publicKey });
  });

  for (const bit of [1, 2, 3] as const) {
    it(`refuses the same 32 key bytes spelled another way (last character ^ ${bit})`, () => {
      const other = respelled(publicKey, bit);
      assert.deepEqual(Buffer.from(other, 'base64url'), Buffer.from(publicKey, 'base64url'));
      assert.equal(readIdentityClaim({ nodeUuid, publicKey: other }), null);
    });
  }

  for (const [name, key] of [
    ['31 bytes', Buffer.alloc(31).toString('base64url')],
    ['33 bytes', Buffer.alloc(33).toString('base64url')],
    ['standard base64', Buffer.alloc(32, 0xff).toString('base64')],
    ['not a string', 42],
  ] as const) {
    it(`refuses a key that is ${name}`, () => {
      assert.equal(readIdentityClaim({ nodeUuid, publicKey: key }), null);
    });
  }

  it('refuses a node UUID that is not one', () => {
    assert.equal(readIdentityClaim({ nodeUuid: 'not-a-uuid', publicKey }), null);
  });
});
