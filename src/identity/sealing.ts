/**
 * Sealing: authenticated encryption for the few secrets the pool keeps at rest (the identity's
 * private key and the bearer tokens this Hub presents to peers).
 *
 * Format: `v1.<base64url(iv | tag | ciphertext)>`, AES-256-GCM with a fresh 12-byte IV per seal.
 * The version prefix is there so a later format can be added without guessing what a stored blob
 * is; GCM's tag is what lets `unseal` tell a wrong secret or an edited blob apart from a good one,
 * instead of returning garbage that fails somewhere far away.
 */
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/** 100,000 rounds is the contract in docs/peer-protocol.md; changing it would strand every sealed key. */
export const PBKDF2_ITERATIONS = 100_000;
export const SEALING_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Derives the 32-byte sealing key. Asynchronous on purpose: the synchronous form holds the event
 * loop for tens of milliseconds (the reference measured 42.8 ms), and it runs on request paths.
 */
export async function deriveSealingKey(secret: string | Buffer, salt: Buffer): Promise<Buffer> {
  return pbkdf2Async(secret, salt, PBKDF2_ITERATIONS, SEALING_KEY_BYTES, 'sha256');
}

export function seal(key: Buffer, plaintext: Buffer): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

/** Throws an Error whose message says which of version, shape or authentication failed. */
export function unseal(key: Buffer, sealed: string): Buffer {
  assertKey(key);
  const dot = sealed.indexOf('.');
  const version = dot < 0 ? '' : sealed.slice(0, dot);
  if (version !== VERSION) throw new Error(`sealed value has unknown format version '${version.slice(0, 16)}'`);
  const body = sealed.slice(dot + 1);
  // Buffer.from(…, 'base64url') skips characters it does not know, so check the alphabet first.
  if (!BASE64URL.test(body)) throw new Error('sealed value is not valid base64url');
  const raw = Buffer.from(body, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new Error('sealed value failed authentication: wrong secret, or the data was altered');
  }
}

function assertKey(key: Buffer): void {
  if (key.length !== SEALING_KEY_BYTES) throw new Error(`sealing key must be ${SEALING_KEY_BYTES} bytes, got ${key.length}`);
}
