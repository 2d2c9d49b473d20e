/**
 * Reading a node UUID and public key out of an untrusted body. Anything a peer sends is
 * checked for shape here before it can reach a row: a UUID, and 32 raw Ed25519 key bytes in
 * their one canonical base64url spelling.
 */
import { ED25519_PUBLIC_KEY_BYTES } from '../identity/fingerprint.js';

/** A node UUID as every Hub writes it: lower-case, hyphenated. */
export const NODE_UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface IdentityClaim {
  readonly nodeUuid: string;
  readonly publicKey: string;
}

export function readIdentityClaim(body: unknown): IdentityClaim | null {
  const b = body as { nodeUuid?: unknown; publicKey?: unknown } | null;
  if (typeof b?.nodeUuid !== 'string' || typeof b.publicKey !== 'string') return null;
  if (!NODE_UUID_PATTERN.test(b.nodeUuid) || !/^[A-Za-z0-9_-]{43}$/.test(b.publicKey)) return null;
  return isCanonicalKey(b.publicKey) ? { nodeUuid: b.nodeUuid, publicKey: b.publicKey } : null;
}

/**
 * 43 characters carry 258 bits, so the last one holds two bits the decoder drops: four spellings
 * decode to the same 32 bytes, and Node verifies signatures under any of them. Only the spelling
 * the bytes encode back to is taken, because the fingerprint refuses the other three, and a row
 * holding one once made status and the peer list answer 500 for as long as it stood.
 */
function isCanonicalKey(publicKey: string): boolean {
  const raw = Buffer.from(publicKey, 'base64url');
  return raw.length === ED25519_PUBLIC_KEY_BYTES && raw.toString('base64url') === publicKey;
}

/** A bearer token as the handshake carries it: 32 random bytes, base64url. */
export function readToken(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}
