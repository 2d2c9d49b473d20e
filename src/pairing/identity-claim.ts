/**
 * Reading a node UUID and public key out of an untrusted body. Anything a peer sends is
 * checked for shape here before it can reach a row: a UUID, and 32 raw Ed25519 key bytes.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface IdentityClaim {
  readonly nodeUuid: string;
  readonly publicKey: string;
}

export function readIdentityClaim(body: unknown): IdentityClaim | null {
  const b = body as { nodeUuid?: unknown; publicKey?: unknown } | null;
  if (typeof b?.nodeUuid !== 'string' || typeof b.publicKey !== 'string') return null;
  if (!UUID.test(b.nodeUuid) || !/^[A-Za-z0-9_-]{43}$/.test(b.publicKey)) return null;
  return Buffer.from(b.publicKey, 'base64url').length === 32 ? { nodeUuid: b.nodeUuid, publicKey: b.publicKey } : null;
}

/** A bearer token as the handshake carries it: 32 random bytes, base64url. */
export function readToken(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}
