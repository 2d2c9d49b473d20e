/**
 * The receiving half of signed peer requests (docs/peer-protocol.md, "Signed requests").
 *
 * The checks run in a fixed order, and the order is part of the behaviour:
 * 1. recipient: a request addressed to a UUID this Hub does not hold is refused first and by name
 *    (identity-mismatch), whatever else is wrong with it. That is how a peer still pinning this
 *    Hub's previous identity learns the pairing must be redone, instead of seeing bare 401s for a
 *    day (the beta-max volume recreation, 2026-09-16).
 * 2. sender: the UUID resolves the pinned public key.
 * 3. skew: the timestamp within 300 s of this clock.
 * 4. signature.
 * 5. nonce, remembered only now: if it were recorded before the signature was checked, anyone
 *    could burn a legitimate sender's nonces with forged requests.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { bodyHash, canonicalRequest, coversBody } from './canonical.js';
import {
  HEADER_NODE,
  HEADER_NONCE,
  HEADER_PEER,
  HEADER_RECIPIENT,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  SIGNATURE_PREFIX,
  type IncomingHeaders,
} from './signed-headers.js';

// Re-exported so the receiving side can import everything it needs from one module.
export { isSignedRequest, type IncomingHeaders } from './signed-headers.js';

/** How far a request's timestamp may be from this Hub's clock, either way. */
export const SKEW_WINDOW_MS = 300_000;

/** Where accepted nonces are remembered: true the first time a key is seen within its lifetime, false for a repeat. */
export interface NonceMemory {
  remember(key: string, nowMs: number): boolean;
}

export type VerifyRefusal = 'missing-headers' | 'identity-mismatch' | 'unknown-sender' | 'skew' | 'replay' | 'bad-signature' | 'malformed';
export type VerifyResult = { ok: true; senderUuid: string; senderFqdn: string } | { ok: false; reason: VerifyRefusal };

export interface VerifySignedParams {
  headers: IncomingHeaders;
  method: string;
  /** Path and query exactly as received (the raw request URL). */
  path: string;
  body: Buffer;
  myUuid: string;
  nowMs: number;
  /** The pinned public key (base64url raw) for a sender UUID, or null when none is pinned. */
  peerKey: (senderUuid: string) => string | null;
  nonces: NonceMemory;
}

const SIGNATURE_BYTES = 64;
// Wide enough for any sane encoding of 16 bytes, narrow enough to bound what the cache stores.
const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
const TIMESTAMP_PATTERN = /^\d{1,15}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function verifySignedRequest(p: VerifySignedParams): VerifyResult {
  const recipient = single(p.headers[HEADER_RECIPIENT]);
  if (typeof recipient === 'string' && recipient !== p.myUuid) return refuse('identity-mismatch');
  const senderUuid = single(p.headers[HEADER_NODE]);
  const senderFqdn = single(p.headers[HEADER_PEER]);
  const timestamp = single(p.headers[HEADER_TIMESTAMP]);
  const nonce = single(p.headers[HEADER_NONCE]);
  const signature = single(p.headers[HEADER_SIGNATURE]);
  const all = [recipient, senderUuid, senderFqdn, timestamp, nonce, signature];
  if (all.some((v) => v === null)) return refuse('malformed');
  if (!recipient || !senderUuid || !senderFqdn || !timestamp || !nonce || !signature) return refuse('missing-headers');

  const publicKey = p.peerKey(senderUuid);
  if (publicKey === null) return refuse('unknown-sender');

  if (!TIMESTAMP_PATTERN.test(timestamp)) return refuse('malformed');
  if (Math.abs(p.nowMs - Number(timestamp)) > SKEW_WINDOW_MS) return refuse('skew');

  if (!NONCE_PATTERN.test(nonce) || !signature.startsWith(SIGNATURE_PREFIX)) return refuse('malformed');
  const encoded = signature.slice(SIGNATURE_PREFIX.length);
  const sig = BASE64URL.test(encoded) ? Buffer.from(encoded, 'base64url') : Buffer.alloc(0);
  if (sig.length !== SIGNATURE_BYTES) return refuse('malformed');
  let data: Buffer;
  try {
    data = canonicalRequest({
      method: p.method,
      path: p.path,
      senderUuid,
      senderFqdn,
      recipientUuid: recipient,
      timestamp,
      nonce,
      bodyHash: coversBody(p.path) ? bodyHash(p.body) : null,
    });
  } catch {
    return refuse('malformed');
  }
  const key = keyObject(publicKey);
  // A pinned key that will not parse cannot vouch for anything; that is a failed signature.
  if (!key || !verify(null, data, key, sig)) return refuse('bad-signature');

  if (!p.nonces.remember(`${senderUuid}\n${nonce}`, p.nowMs)) return refuse('replay');
  return { ok: true, senderUuid, senderFqdn };
}

function refuse(reason: VerifyRefusal): VerifyResult {
  return { ok: false, reason };
}

/** The header's one value; null when it was sent more than once, which is trusted to mean neither. */
function single(value: string | string[] | undefined): string | null | undefined {
  if (!Array.isArray(value)) return value;
  return value.length === 1 ? value[0] : value.length === 0 ? undefined : null;
}

// Parsing a JWK into a KeyObject costs more than the verify itself, and /local/* verifies on
// every forwarded request from a handful of peers, so parsed keys are kept. The bound keeps a
// churn of re-pinned keys from growing it without limit.
const KEY_CACHE_MAX = 256;
const keyCache = new Map<string, KeyObject | null>();

function keyObject(publicKey: string): KeyObject | null {
  const cached = keyCache.get(publicKey);
  if (cached !== undefined) return cached;
  let key: KeyObject | null;
  try {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey }, format: 'jwk' });
  } catch {
    key = null;
  }
  if (keyCache.size >= KEY_CACHE_MAX) {
    const oldest = keyCache.keys().next();
    if (!oldest.done) keyCache.delete(oldest.value);
  }
  keyCache.set(publicKey, key);
  return key;
}
