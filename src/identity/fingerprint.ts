/**
 * The short form of a public key that operators compare by eye: on the pending request one Hub
 * shows, and in the other Hub's status. Half of SHA-256 (128 bits) is plenty for a human check and
 * short enough to read aloud; groups of four make it easy to compare in chunks.
 */
import { createHash } from 'node:crypto';

export const ED25519_PUBLIC_KEY_BYTES = 32;

/**
 * `publicKey` is base64url of the raw 32-byte Ed25519 key. Throws on any other length: a key of the
 * wrong size is a bug upstream, and a fingerprint of it would look valid to a human.
 */
export function keyFingerprint(publicKey: string): string {
  let fingerprint = fingerprints.get(publicKey);
  if (fingerprint === undefined) {
    fingerprint = fingerprintOf(publicKey);
    if (fingerprints.size >= FINGERPRINTS_KEPT) fingerprints.clear();
    fingerprints.set(publicKey, fingerprint);
  }
  return fingerprint;
}

/**
 * The fingerprint, or null for a key that has none. For answers that list many keys (status, the
 * peer list): one bad stored key shows as no fingerprint on its own row rather than failing
 * the whole answer. Keys are checked where they enter (pairing/identity-claim.ts), so a key
 * reaching this null was stored by an older build or edited into the database.
 */
export function keyFingerprintOrNull(publicKey: string): string | null {
  try {
    return keyFingerprint(publicKey);
  } catch {
    return null;
  }
}

/**
 * Fingerprints already worked out, by key. Status shows every peer's on every answer, and the
 * SHA-256 behind each was about 5% of /status at 50 peers (bench/pool-scale, 2026-12-05). A pool
 * holds a few dozen keys; the bound only stops a churn of pairings from growing it.
 */
const FINGERPRINTS_KEPT = 1_024;
const fingerprints = new Map<string, string>();

function fingerprintOf(publicKey: string): string {
  const raw = Buffer.from(publicKey, 'base64url');
  if (raw.length !== ED25519_PUBLIC_KEY_BYTES || raw.toString('base64url') !== publicKey) {
    throw new Error(`public key is not base64url of ${ED25519_PUBLIC_KEY_BYTES} raw bytes`);
  }
  const hex = createHash('sha256').update(raw).digest('hex').slice(0, 32);
  return Array.from({ length: 8 }, (_, i) => hex.slice(i * 4, i * 4 + 4)).join(':');
}
