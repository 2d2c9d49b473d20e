/**
 * The peer guard: who is calling a peer route. A caller is admitted two ways: a signature
 * resolved by its pinned node UUID (preferred), or the legacy bearer token this Hub issued it,
 * presented with its name. The bearer branch is refused for a peer already seen signing and
 * whenever poolRequireSignedPeers is on. The first good signature from an approved peer retires
 * both tokens of that pairing. An approved signed peer presenting a new name is recorded, not
 * applied here: the name is UNIQUE, and the health tick applies renames where a collision can be
 * handled. A pending row is admitted unchanged, for its route to refuse.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken } from '../auth/bearer.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import type { PeerRow, PeerStore } from '../store/peers.js';
import { normalizePeerName } from '../tailnet/peer-name.js';
import type { Clock } from '../util/clock.js';
import type { NonceMemory } from './verify-signed.js';
import { HEADER_PEER, HEADER_RECIPIENT, isSignedRequest } from './signed-headers.js';
import { verifySignedRequest } from './verify-signed.js';

export type PeerAdmission =
  | { readonly ok: true; readonly peer: PeerRow; readonly via: 'signed' | 'bearer' }
  | { readonly ok: false; readonly reason: string; readonly identityMismatch: boolean };

export interface PeerGuardDeps {
  readonly store: PeerStore;
  readonly identity: NodeIdentity;
  readonly nonces: NonceMemory;
  readonly clock: Clock;
  readonly requireSigned: () => boolean;
  /** Called with (row id, new name) when a signed peer presents a name other than its row's. */
  readonly onRename: (rowId: string, newName: string) => void;
}

export interface PeerRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export async function admitPeer(deps: PeerGuardDeps, req: PeerRequest): Promise<PeerAdmission> {
  if (isSignedRequest(req.headers)) return admitSigned(deps, req);
  return admitBearer(deps, req);
}

async function admitSigned(deps: PeerGuardDeps, req: PeerRequest): Promise<PeerAdmission> {
  // Never mints: with no identity no peer can have pinned this Hub, so there is nothing to verify.
  const me = await deps.identity.loadExisting();
  if (me === null || me.nodeUuid === null) {
    // Holding no UUID, this Hub holds none a request could be addressed to. A peer still pinning an
    // earlier identity under this name (a recreated data dir) is told so by name, as verify-signed
    // tells a Hub that holds another UUID, and learns the pairing must be redone.
    const addressed = typeof req.headers[HEADER_RECIPIENT] === 'string';
    return { ok: false, reason: 'this Hub has no pool identity yet', identityMismatch: addressed };
  }
  const verdict = verifySignedRequest({
    headers: req.headers,
    method: req.method,
    path: req.url,
    body: req.body,
    myUuid: me.nodeUuid,
    nowMs: deps.clock.nowMs(),
    peerKey: (uuid) => deps.store.byUuid(uuid)?.peerPublicKey ?? null,
    nonces: deps.nonces,
  });
  if (!verdict.ok) return { ok: false, reason: `signature refused (${verdict.reason})`, identityMismatch: verdict.reason === 'identity-mismatch' };
  let peer = deps.store.byUuid(verdict.senderUuid);
  if (peer === null) return { ok: false, reason: 'unknown sender', identityMismatch: false };
  // A request still waiting for approval is admitted only so the route can refuse it (or, on the
  // requester, take the confirmation that approves it). Its signature changes nothing about the
  // row: an unapproved requester could otherwise rename its own pending request to a name the
  // operator trusts before the operator reads the list.
  if (peer.status === 'pending') return { ok: true, peer, via: 'signed' };
  if (peer.signedSeenAt === null) {
    // Seen signing: the bearer tokens of this pairing authenticate nowhere from now on.
    peer = deps.store.update(peer.id, {
      signedSeenAt: new Date(deps.clock.nowMs()).toISOString(),
      issuedTokenHash: null,
      presentTokenSealed: null,
      bearerGraceUntil: null,
    })!;
  }
  const claimed = normalizePeerName(verdict.senderFqdn);
  if (claimed.ok && claimed.name !== peer.nodeFqdn) deps.onRename(peer.id, claimed.name);
  return { ok: true, peer, via: 'signed' };
}

function admitBearer(deps: PeerGuardDeps, req: PeerRequest): PeerAdmission {
  const refuse = (reason: string): PeerAdmission => ({ ok: false, reason, identityMismatch: false });
  const token = bearerToken(req.headers.authorization);
  const rawName = req.headers[HEADER_PEER];
  if (token === null || typeof rawName !== 'string') return refuse('no peer credentials');
  if (deps.requireSigned()) return refuse('bearer tokens are refused: poolRequireSignedPeers is on');
  const name = normalizePeerName(rawName);
  const peer = name.ok ? deps.store.byFqdn(name.name) : null;
  if (peer === null || peer.issuedTokenHash === null) return refuse('unknown peer or no token issued');
  if (peer.signedSeenAt !== null) return refuse('this peer has been seen signing; its bearer token is retired');
  // A PIN exchange pinned the peer's key before any approval, so its confirmation comes signed; a
  // token on such a row while it waits (one an older build kept) must not stand in for the key.
  // Once connected the spec's rule applies: a token is refused when the peer has been seen signing.
  if (peer.status === 'pending' && peer.pinVerified && peer.peerPublicKey !== null) return refuse('a pairing made with a PIN confirms with a signature');
  const presented = createHash('sha256').update(token).digest();
  const expected = Buffer.from(peer.issuedTokenHash, 'hex');
  if (expected.length !== presented.length || !timingSafeEqual(presented, expected)) return refuse('bearer token refused');
  return { ok: true, peer, via: 'bearer' };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
