import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { deriveSealingKey, seal, unseal } from './sealing.js';

const salt = Buffer.alloc(16, 7);

describe('sealing', () => {
  it('derives the same 32-byte key from the same secret and salt, and a different one from a different salt', async () => {
    const a = await deriveSealingKey('correct horse', salt);
    const b = await deriveSealingKey(Buffer.from('correct horse'), salt);
    const c = await deriveSealingKey('correct horse', Buffer.alloc(16, 8));
    assert.equal(a.length, 32);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  });

  it('round-trips bytes, writing v1.<base64url> with a fresh IV each time', () => {
    const key = randomBytes(32);
    const plaintext = Buffer.from('the private key');
    const first = seal(key, plaintext);
    const second = seal(key, plaintext);
    assert.match(first, /^v1\.[A-Za-z0-9_-]+$/);
    assert.notEqual(first, second);
    assert.equal(Buffer.from(first.slice(3), 'base64url').length, 12 + 16 + plaintext.length);
    assert.deepEqual(unseal(key, first), plaintext);
    assert.deepEqual(unseal(key, seal(key, Buffer.alloc(0))), Buffer.alloc(0));
  });

  const key = randomBytes(32);
  const good = seal(key, Buffer.from('secret bytes'));
  const raw = Buffer.from(good.slice(3), 'base64url');
  const flipped = (index: number): string => {
    const copy = Buffer.from(raw);
    copy[index] = (copy[index] ?? 0) ^ 1;
    return `v1.${copy.toString('base64url')}`;
  };
  const refusals: Array<{ name: string; key: Buffer; sealed: string; error: RegExp }> = [
    { name: 'a wrong key', key: randomBytes(32), sealed: good, error: /failed authentication/ },
    { name: 'a flipped ciphertext byte', key, sealed: flipped(raw.length - 1), error: /failed authentication/ },
    { name: 'a flipped tag byte', key, sealed: flipped(12), error: /failed authentication/ },
    { name: 'a flipped IV byte', key, sealed: flipped(0), error: /failed authentication/ },
    { name: 'a blob cut short of IV and tag', key, sealed: `v1.${raw.subarray(0, 20).toString('base64url')}`, error: /truncated/ },
    {
      name: 'a blob missing its last ciphertext byte',
      key,
      sealed: `v1.${raw.subarray(0, raw.length - 1).toString('base64url')}`,
      error: /failed authentication/,
    },
    { name: 'an unknown version', key, sealed: `v2.${raw.toString('base64url')}`, error: /unknown format version 'v2'/ },
    { name: 'no version at all', key, sealed: raw.toString('base64url'), error: /unknown format version/ },
    { name: 'characters outside base64url', key, sealed: `v1.${raw.toString('base64')}!`, error: /not valid base64url/ },
  ];
  for (const r of refusals) {
    it(`refuses ${r.name}`, () => {
      assert.throws(() => unseal(r.key, r.sealed), r.error);
    });
  }

  it('refuses a key that is not 32 bytes', () => {
    assert.throws(() => seal(randomBytes(16), Buffer.from('x')), /32 bytes/);
  });
});
