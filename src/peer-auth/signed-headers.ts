/**
 * The headers a signed peer request carries, and the sending half of the scheme.
 * Names are lower case because that is how Node presents incoming headers.
 */
import { randomBytes } from 'node:crypto';
import { bodyHash, canonicalRequest, coversBody } from './canonical.js';

export const HEADER_NODE = 'x-hub-pool-node';
export const HEADER_PEER = 'x-hub-pool-peer';
export const HEADER_RECIPIENT = 'x-hub-pool-recipient';
export const HEADER_TIMESTAMP = 'x-hub-pool-timestamp';
export const HEADER_NONCE = 'x-hub-pool-nonce';
export const HEADER_SIGNATURE = 'x-hub-pool-signature';
/** Set by the receiver on a 401; 'identity-mismatch' is the only value it ever names. */
export const HEADER_REFUSAL = 'x-hub-pool-refusal';

export type IncomingHeaders = Record<string, string | string[] | undefined>;

export const SIGNATURE_PREFIX = 'v1.ed25519.';
export const NONCE_BYTES = 16;

export interface SignRequestParams {
  sign: (data: Buffer) => Buffer;
  senderUuid: string;
  senderFqdn: string;
  /** The receiver's UUID as this Hub has it pinned. */
  recipientUuid: string;
  method: string;
  /** Path and query exactly as they will be sent. */
  path: string;
  body: Buffer;
  nowMs: number;
  /** Tests pass a fixed nonce; otherwise 16 random bytes. */
  nonce?: string;
}

export function signRequest(p: SignRequestParams): Record<string, string> {
  const timestamp = String(p.nowMs);
  const nonce = p.nonce ?? randomBytes(NONCE_BYTES).toString('base64url');
  const data = canonicalRequest({
    method: p.method,
    path: p.path,
    senderUuid: p.senderUuid,
    senderFqdn: p.senderFqdn,
    recipientUuid: p.recipientUuid,
    timestamp,
    nonce,
    bodyHash: coversBody(p.path) ? bodyHash(p.body) : null,
  });
  return {
    [HEADER_NODE]: p.senderUuid,
    [HEADER_PEER]: p.senderFqdn,
    [HEADER_RECIPIENT]: p.recipientUuid,
    [HEADER_TIMESTAMP]: timestamp,
    [HEADER_NONCE]: nonce,
    [HEADER_SIGNATURE]: `${SIGNATURE_PREFIX}${p.sign(data).toString('base64url')}`,
  };
}

/**
 * Whether a request is attempting the signed scheme. Any signed-only header counts, so a request
 * carrying half of them is judged (and refused) as signed rather than falling through to the
 * bearer branch.
 */
export function isSignedRequest(headers: IncomingHeaders): boolean {
  return [HEADER_NODE, HEADER_RECIPIENT, HEADER_TIMESTAMP, HEADER_NONCE, HEADER_SIGNATURE].some((h) => headers[h] !== undefined);
}
