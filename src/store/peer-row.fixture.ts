/** A stored peer row, outbound and connected with nothing pinned, for tests: override what the case is about. */
import type { NewPeer, PeerRow, PeerStore } from './peers.js';

export function peerRowFixture(extra: Partial<PeerRow> = {}): PeerRow {
  return {
    id: 'p1',
    nodeFqdn: 'hub-b.tail0.ts.net',
    direction: 'outbound',
    status: 'connected',
    enabled: true,
    peerNodeUuid: null,
    peerPublicKey: null,
    pinVerified: false,
    issuedTokenHash: null,
    presentTokenSealed: null,
    signedSeenAt: null,
    bearerGraceUntil: null,
    createdAt: '2026-11-30T11:00:00.000Z',
    expiresAt: null,
    lastSeenAt: null,
    consecutiveFailures: 0,
    confirmFailedAt: null,
    crossedAt: null,
    ...extra,
  };
}

/**
 * Stores a connected pairing still on bearer tokens (both tokens held, no key pinned), as
 * pairings made before signed requests are, and returns it with `extra` applied.
 */
export function insertBearerOnly(store: PeerStore, row: Pick<NewPeer, 'nodeFqdn' | 'direction' | 'createdAt'>, extra: Partial<PeerRow> = {}): PeerRow {
  const { id } = store.insert({
    ...row,
    status: 'connected',
    peerNodeUuid: null,
    peerPublicKey: null,
    pinVerified: false,
    issuedTokenHash: 'h',
    presentTokenSealed: 's',
    expiresAt: null,
  });
  return store.update(id, extra)!;
}
