/**
 * How this Hub authenticates to a peer, decided from the row alone (docs/peer-protocol.md,
 * "Upgrade and grace"). A pinned key is used at once when it was learned from a response (the
 * peer demonstrably holds ours); when it was learned from a request, the bearer token stays in
 * use through the grace window until the peer is seen signing.
 */
import type { PeerRow } from '../store/peers.js';

export type AuthMode = 'signed' | 'bearer' | 'none';

export function outboundAuthMode(row: PeerRow, requireSigned: boolean): AuthMode {
  const pinned = row.peerNodeUuid !== null && row.peerPublicKey !== null;
  if (pinned && (row.bearerGraceUntil === null || row.presentTokenSealed === null || requireSigned)) return 'signed';
  if (requireSigned) return 'none';
  return row.presentTokenSealed !== null ? 'bearer' : 'none';
}

/** What status reports as a peer's auth mode: signed once the peer has been seen signing or signs to us. */
export function reportedAuthMode(row: PeerRow): 'signed' | 'bearer' | 'none' {
  // A request still waiting for approval authenticates nothing yet.
  if (row.status === 'pending') return 'none';
  if (row.signedSeenAt !== null) return 'signed';
  if (row.peerNodeUuid !== null && row.bearerGraceUntil === null) return 'signed';
  return row.presentTokenSealed !== null || row.issuedTokenHash !== null ? 'bearer' : 'none';
}
