/**
 * The exact bytes a peer request signature covers (docs/peer-protocol.md, "Signed requests").
 * Both Hubs must build these identically, byte for byte, so nothing here is lenient.
 *
 * Nine lines joined by '\n', no trailing newline:
 *
 *   hub-pool-request-v1   fixes the scheme and version, so these bytes can never be mistaken for
 *                         another signed structure, and a v2 layout cannot be replayed as v1
 *   METHOD                upper case; a signed GET cannot be replayed as a POST
 *   path?query            as sent, so a signature for one route cannot authorise another
 *   sender UUID           the key the receiver looked the public key up by
 *   sender name           the MagicDNS name the sender claims; signing it is what lets the receiver
 *                         trust a rename it sees arrive under the sender's key
 *   recipient UUID        the receiver as the sender has it pinned: a captured request cannot be
 *                         replayed to any other Hub, and a recreated Hub can tell it is not the one
 *                         being addressed
 *   timestamp             unix ms; bounds how long a captured request is worth anything
 *   nonce                 single use inside that window
 *   body hash             hex SHA-256 of the body on /pair/* (control messages carry tokens and
 *                         keys, so the body must be bound); empty on other routes, where the lines
 *                         above already make a captured /local/* request useless and hashing a
 *                         large forwarded body on every hop would cost the streaming path
 */
import { createHash } from 'node:crypto';

export const CANONICAL_PREAMBLE = 'hub-pool-request-v1';

export interface CanonicalRequestParts {
  method: string;
  path: string;
  senderUuid: string;
  senderFqdn: string;
  recipientUuid: string;
  timestamp: string;
  nonce: string;
  /** bodyHash(body) when coversBody(path), else null. */
  bodyHash: string | null;
}

/** Throws if a field holds a line break: one field could then pose as two, and the bytes would be ambiguous. */
export function canonicalRequest(p: CanonicalRequestParts): Buffer {
  const lines = [CANONICAL_PREAMBLE, p.method.toUpperCase(), p.path, p.senderUuid, p.senderFqdn, p.recipientUuid, p.timestamp, p.nonce, p.bodyHash ?? ''];
  for (const line of lines) {
    if (/[\r\n]/.test(line)) throw new Error('a signed request field contains a line break');
  }
  return Buffer.from(lines.join('\n'), 'utf8');
}

export function bodyHash(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

/**
 * Whether the body is signed: the /pair/* control routes. Only the path before '?' is judged, so a
 * query string cannot switch body coverage on or off. It is judged decoded, as the router matches
 * it: /%70air/unpair reaches /pair/unpair, and judged raw it would have let a control message
 * through with its body unsigned. A path that does not decode is covered, which costs nothing
 * (no Hub sends one) and leaves no spelling the two sides could read differently.
 */
export function coversBody(path: string): boolean {
  const q = path.indexOf('?');
  const route = q < 0 ? path : path.slice(0, q);
  // Without a '%' the decoded path is the raw one: every /local/* forward takes this branch, so the
  // decode stays off the relay path.
  if (!route.includes('%')) return route.includes('/pair/');
  try {
    return decodeURIComponent(route).includes('/pair/');
  } catch {
    return true;
  }
}
