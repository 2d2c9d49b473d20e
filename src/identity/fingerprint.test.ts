import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { keyFingerprint, keyFingerprintOrNull } from './fingerprint.js';

describe('keyFingerprint', () => {
  it('is the first 16 bytes of SHA-256 of the raw key, hex in groups of four joined by colons', () => {
    // SHA-256 of 32 zero bytes is 66687aad f862bd77 6c8fc18b 8e9f8e20 0897...
    assert.equal(keyFingerprint(Buffer.alloc(32).toString('base64url')), '6668:7aad:f862:bd77:6c8f:c18b:8e9f:8e20');
  });

  it('is deterministic, and differs between keys', () => {
    const a = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '';
    const b = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '';
    assert.equal(keyFingerprint(a), keyFingerprint(a));
    assert.notEqual(keyFingerprint(a), keyFingerprint(b));
    assert.match(keyFingerprint(a), /^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/);
  });

  it('names each key by its own fingerprint through more keys than are kept, and again after', () => {
    const keys = Array.from({ length: 1_500 }, (_, i) =>
      Buffer.alloc(32)
        .fill(i % 251, 0, 16)
        .fill(Math.floor(i / 251), 16)
        .toString('base64url'),
    );
    const first = keys.map(keyFingerprint);
    assert.equal(new Set(first).size, keys.length);
    assert.deepEqual(keys.map(keyFingerprint), first);
    assert.equal(keyFingerprint(Buffer.alloc(32).toString('base64url')), '6668:7aad:f862:bd77:6c8f:c18b:8e9f:8e20');
  });

  for (const [name, key] of [
    ['31 bytes', Buffer.alloc(31).toString('base64url')],
    ['33 bytes', Buffer.alloc(33).toString('base64url')],
    ['standard base64 padding', Buffer.alloc(32, 0xff).toString('base64')],
    ['an empty string', ''],
  ] as const) {
    it(`refuses a key that is ${name}`, () => {
      assert.throws(() => keyFingerprint(key), /32 raw bytes/);
    });
  }

  it('has a form that answers null for a key it refuses, and the fingerprint otherwise', () => {
    const key = Buffer.alloc(32).toString('base64url');
    assert.equal(keyFingerprintOrNull(key), keyFingerprint(key));
    // The same 32 bytes with the last character's two unused bits set: decodes, but is not the key's own spelling.
    assert.equal(keyFingerprintOrNull(`${key.slice(0, -1)}D`), null);
    assert.equal(keyFingerprintOrNull(''), null);
  });
});
