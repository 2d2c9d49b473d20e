/**
 * The pairing handshake (docs/peer-protocol.md, "Pairing handshake"): both halves of it, for
 * the operator who asks and the Hub that is asked. Rows are written only after every check
 * passes, and a handshake that fails removes what it wrote, so a refusal leaves nothing behind.
 */
import { notText } from '../util/echo.js';
import { poolSwitchedOff, type DisabledBy } from '../config/kill-switch.js';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { HubError } from '../errors.js';
import { identityUnavailable } from '../identity/identity-fix.js';
import type { IdentityState, NodeIdentity } from '../identity/node-identity.js';
import { hashToken } from '../peer-auth/peer-guard.js';
import type { PeerClient } from '../peers/peer-client.js';
import type { PairingNotes } from '../peers/pairing-problem.js';
import type { PeerRow, PeerStore } from '../store/peers.js';
import { belongsToTailnet, normalizePeerName, otherTailnetProblem } from '../tailnet/peer-name.js';
import type { TailnetSelf } from '../tailnet/tailnet-self.js';
import type { Membership } from '../discovery/membership.js';
import type { Clock } from '../util/clock.js';
import { readIdentityClaim, readToken, type IdentityClaim } from './identity-claim.js';
import type { PairingPin } from './pairing-pin.js';
import { declinedBecause, peerRefusalReason } from './peer-refusal-reason.js';
import { pairingSourceKeys, type StrikeLimiter } from './strike-limiter.js';

/** An unanswered request expires after 24 hours on both sides. */
export const PAIRING_REQUEST_TTL_MS = 24 * 60 * 60_000;
/** At most 20 inbound requests wait for approval at once (spec: the 20-row ceiling), split below. */
export const MAX_PENDING_TOTAL = 20;
/**
 * Five of the twenty are kept for requests that carried a valid PIN, so requests without one
 * can never stop a PIN pairing (issue 9, defect 17). Each needs a PIN the operator minted, so a
 * handful is plenty.
 */
export const MAX_PENDING_WITH_PIN = 5;
/** What is left of the twenty for requests without a PIN. */
export const MAX_PENDING_INBOUND = MAX_PENDING_TOTAL - MAX_PENDING_WITH_PIN;
/** A pairing call gives up after 10 s (a first HTTPS request can wait on certificate issuance). */
export const PAIRING_CALL_TIMEOUT_MS = 10_000;
/** Bearer grace after learning a key from a request: 10 minutes or four polls, whichever is longer. */
export const BEARER_GRACE_MIN_MS = 10 * 60_000;
export const BEARER_GRACE_POLLS = 4;

export interface PairingDeps {
  readonly store: PeerStore;
  readonly identity: NodeIdentity;
  readonly client: PeerClient;
  readonly pin: PairingPin;
  readonly limiter: StrikeLimiter;
  readonly self: () => Promise<TailnetSelf>;
  /** Which master switch holds Hub Pool off; null while it is on. */
  readonly poolOff: () => DisabledBy;
  /** poolRequireSignedPeers as it stands: with it on, a pairing is made with a PIN or not at all. */
  readonly requireSigned: () => boolean;
  readonly pollSeconds: () => number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A peer just became connected: poll it now rather than a whole interval later. */
  readonly onConnected: (peer: PeerRow) => void;
  /**
   * The Admin API membership check, when a credential is set (discovery/membership.ts); null
   * from it means there is no tailnet to compare against.
   */
  readonly membership?: (name: string) => Promise<Membership | null>;
}

export interface InboundRequest {
  readonly body: unknown;
  /** The caller's address when it can be trusted to name the caller; null otherwise. */
  readonly sourceIp: string | null;
}

/** The refusal of a pairing step (or a second rotation) while the identity key is being rotated. */
export function identityRotating(): HubError {
  return new HubError('HUB_ERR_CONFLICT', 'this Hub is rotating its identity key, which removes every pairing; try again once the rotation has finished');
}

export class PairingService {
  readonly #d: PairingDeps;
  /**
   * Outbound requests still waiting here whose peer already calls as paired, by row id. An entry
   * is dropped when its request stops waiting (confirmed, rejected, withdrawn, unpaired or expired),
   * so the map holds no more than the requests this Hub has out.
   */
  readonly #approvedThere = new Map<string, string>();
  /** Rows whose approval is calling the requester back right now. */
  readonly #confirming = new Set<string>();
  /**
   * Set while a rotation runs. Its unpair calls take a while, and a pairing started meanwhile
   * would be made with the key about to be destroyed and then deleted without a word to the peer.
   */
  #rotating = false;
  constructor(deps: PairingDeps) {
    this.#d = deps;
  }

  // ---- the operator's side -------------------------------------------------------------

  /** Operator on the requesting Hub: send a pairing request to `rawName`. */
  async requestPairing(rawName: unknown, pin: unknown): Promise<{ peer: PeerRow; pinVerified: boolean }> {
    this.#refuseWhileRotating();
    const name = this.#validName(rawName);
    if (pin !== undefined && pin !== null && (typeof pin !== 'string' || !/^\d{6}$/.test(pin))) {
      throw new HubError('HUB_ERR_BAD_REQUEST', 'pin must be the six digits minted on the other Hub');
    }
    const off = this.#d.poolOff();
    if (off !== null) throw poolSwitchedOff(off, 'turn it on before pairing');
    if (typeof pin !== 'string' && this.#d.requireSigned())
      throw new HubError(
        'HUB_ERR_PAIR_PIN_REQUIRED',
        `poolRequireSignedPeers is on here, and a pairing without a PIN is confirmed with bearer tokens, which this Hub refuses; mint a PIN on ${name} (cihub pool pairing-pin there) and pair with it`,
      );
    const me = await this.#requireIdentity({ operator: true });
    const { nodeFqdn: self, tailnetSuffix } = await this.#namedSelf();
    if (name === self) throw new HubError('HUB_ERR_PAIR_SELF', 'a Hub cannot pair with itself');
    // The far Hub refuses a requester outside its own suffix, so a name outside this one (nas.lan)
    // can never pair by name: say so now, with the way that can, rather than dial https://nas.lan.
    // A MagicDNS name under another tailnet has no such way: address and PIN would reach a Hub whose
    // name this Hub then refuses, so the only fix is one tailnet for both.
    if (!belongsToTailnet(name, tailnetSuffix))
      throw new HubError(
        'HUB_ERR_PAIR_OUTSIDE_TAILNET',
        otherTailnetProblem(name, tailnetSuffix) ??
          `${name} is not a name on this Hub's tailnet (${tailnetSuffix}), so no Hub there can pair by name; a tailnet name ends in .${tailnetSuffix}, and a Hub on the LAN is paired with by address and PIN (cihub pool probe ${name})`,
      );
    // An expired request the sweep has not reached yet is no request: it must not block a new one.
    this.sweep();
    const existing = this.#d.store.byFqdn(name);
    if (existing) throw new HubError('HUB_ERR_CONFLICT', localConflict(existing));
    // Again after the awaits above: a rotation begun meanwhile would miss this row and delete it unannounced.
    this.#refuseWhileRotating();

    const token = randomBytes(32).toString('base64url');
    const row = this.#d.store.insert({
      nodeFqdn: name,
      direction: 'outbound',
      status: 'pending',
      peerNodeUuid: null,
      peerPublicKey: null,
      pinVerified: false,
      issuedTokenHash: hashToken(token),
      presentTokenSealed: null,
      createdAt: this.#iso(),
      expiresAt: this.#iso(PAIRING_REQUEST_TTL_MS),
    });
    const body = { fromNodeFqdn: self, token, ...(typeof pin === 'string' ? { pin, nodeUuid: me.nodeUuid, publicKey: me.publicKey } : {}) };
    const answer = await this.#d.client.call(row, 'POST', '/api/inference/pool/pair/request', body, { timeoutMs: PAIRING_CALL_TIMEOUT_MS, auth: 'none' });
    if (!answer.ok || answer.status !== 200) {
      this.#d.store.delete(row.id);
      throw this.#pairingRefusal(name, answer);
    }
    if (!isPairingAnswer(answer.json)) {
      // A web app at the name (Serve pointed elsewhere, a NAS page with an SPA fallback) answers
      // 200 to anything: taken as received, the request waited a day for an approval nothing
      // there could give, and a PIN request read as an older Hub's.
      this.#d.store.delete(row.id);
      this.#d.logger.warn({ peer: name }, `the pairing request to ${name} was answered 200 without a pairing answer: no Hub answers at that name`);
      throw new HubError(
        'HUB_ERR_PEER_UNREACHABLE',
        `something other than a Hub answered at https://${name}: HTTP 200 without a pairing answer (is another web app published at that name?); nothing was kept here. Check that the Hub runs on ${name} and that Tailscale Serve there publishes it`,
      );
    }
    // Unpaired here while the request was out: with no key learned there is nothing to sign a withdrawal with,
    // and the far request expires unanswered (its approval's callback finds no row here).
    if (typeof pin !== 'string') return { peer: this.#stillRequested(row), pinVerified: false };
    const claim = readIdentityClaim(answer.json);
    const named = nameIn(answer.json);
    if (claim === null) {
      // A Hub on the first pool protocol ignores the PIN and answers without an identity.
      this.#d.logger.warn(
        { peer: name },
        'the pairing answer to a PIN request carried no identity (a Hub on the first pool protocol); the key will be exchanged on confirm',
      );
      return { peer: this.#stillRequested(row), pinVerified: false };
    }
    const mismatch = claim.nodeUuid === me.nodeUuid ? 'self' : named !== name ? 'other-name' : this.#d.store.byUuid(claim.nodeUuid) !== null ? 'held' : null;
    if (mismatch !== null) {
      // The far Hub took the PIN and holds a request an approval could not complete: take it back
      // (signed with the key it just pinned for this Hub), drop this half, and say what to do.
      const held = this.#d.store.byUuid(claim.nodeUuid);
      const retracted = await this.#d.client.call(
        { ...row, peerNodeUuid: claim.nodeUuid, peerPublicKey: claim.publicKey },
        'POST',
        '/api/inference/pool/pair/unpair',
        {},
        { timeoutMs: PAIRING_CALL_TIMEOUT_MS },
      );
      this.#d.store.delete(row.id);
      const told = retracted.ok && retracted.status === 200;
      this.#d.logger.warn({ peer: name, mismatch, retracted: told }, 'the pairing answer named another Hub than the one asked; the request was withdrawn');
      throw new HubError('HUB_ERR_CONFLICT', answerMismatch(mismatch, name, named, held?.nodeFqdn ?? null, self, told));
    }
    // Learned from a response: the peer holds our key (it verified our PIN request), so sign from now
    // on. Its confirmation comes signed too, so the token sent with the request authenticates
    // nothing here: kept, anyone who overheard the request could confirm it in the peer's name.
    const pinned = this.#d.store.update(row.id, {
      peerNodeUuid: claim.nodeUuid,
      peerPublicKey: claim.publicKey,
      pinVerified: true,
      issuedTokenHash: null,
    });
    if (pinned === null) {
      // Unpaired here while the request was out: the far Hub holds it now, with this Hub's key, so
      // take it back signed, as a mismatch does, rather than leave it waiting for an approval.
      const retracted = await this.#d.client.call(
        { ...row, peerNodeUuid: claim.nodeUuid, peerPublicKey: claim.publicKey },
        'POST',
        '/api/inference/pool/pair/unpair',
        {},
        { timeoutMs: PAIRING_CALL_TIMEOUT_MS },
      );
      const told = retracted.ok && retracted.status === 200;
      this.#d.logger.warn({ peer: name, retracted: told }, 'the pairing request was cancelled while it was being sent; it was withdrawn');
      throw new HubError('HUB_ERR_CONFLICT', cancelledWhileSent(name, told));
    }
    return { peer: pinned, pinVerified: true };
  }

  /** The approver's refusal of a request whose wait is over, with how to pair after all. */
  async #expiredRequest(row: PeerRow): Promise<HubError> {
    const self = (await this.#d.self()).nodeFqdn ?? '<this Hub>';
    return new HubError(
      'HUB_ERR_CONFLICT',
      `the request from ${row.nodeFqdn} expired at ${row.expiresAt} and has been removed; nothing is paired. To pair, send a new request from ${row.nodeFqdn} (cihub pool pair ${self} there)`,
    );
  }

  /** The row of a request just sent, or a conflict if it was unpaired while the request was out. */
  #stillRequested(row: PeerRow): PeerRow {
    const current = this.#d.store.get(row.id);
    if (current === null) throw new HubError('HUB_ERR_CONFLICT', cancelledWhileSent(row.nodeFqdn, null));
    return current;
  }

  /** Operator on the receiving Hub: approve a pending inbound request, calling the requester back once. */
  async approve(peer: PeerRow): Promise<{ peer: PeerRow; callback: 'confirmed' | 'failed'; reason: string | null }> {
    if (peer.direction !== 'inbound' || peer.status !== 'pending') {
      throw new HubError('HUB_ERR_CONFLICT', `${peer.nodeFqdn} is not a request waiting for this Hub's approval (it is ${peer.direction} ${peer.status})`);
    }
    this.#refuseWhileRotating();
    const me = await this.#requireIdentity({ operator: true });
    this.#refuseWhileRotating();
    // Re-read after the await: a reject, an unpair or another approve may have taken the row meanwhile.
    const current = this.#d.store.get(peer.id);
    if (current === null) throw removedWhileApproving(peer.nodeFqdn);
    if (current.status !== 'pending')
      throw new HubError('HUB_ERR_CONFLICT', `${peer.nodeFqdn} was approved meanwhile (it is ${current.direction} ${current.status})`);
    // The sweep runs once a minute, so an expired request can still be listed: approved, it would
    // call a requester whose own request (sent a moment earlier) has expired too.
    if (current.expiresAt !== null && Date.parse(current.expiresAt) <= this.#d.clock.nowMs()) {
      this.sweep();
      throw await this.#expiredRequest(current);
    }
    // A request made without a PIN (or before the setting went on) has no key pinned: its confirm
    // would go by bearer token, which the requester cannot sign and this Hub would refuse.
    if (current.peerPublicKey === null && this.#d.requireSigned())
      throw new HubError(
        'HUB_ERR_PAIR_PIN_REQUIRED',
        `${peer.nodeFqdn} asked to pair without a PIN, and poolRequireSignedPeers is on here, so the pairing could not be confirmed; reject it (cihub pool reject ${peer.nodeFqdn}) and pair again with a PIN minted here (cihub pool pairing-pin)`,
      );
    const token = randomBytes(32).toString('base64url');
    // Half paired from the moment the approval is written until the callback is answered: a crash
    // in between then leaves the state that names its fix, not a pairing that looks complete.
    // While the call is out, status does not report that mark (notesOn says the call is out).
    const connected = this.#d.store.update(peer.id, { status: 'connected', issuedTokenHash: hashToken(token), expiresAt: null, confirmFailedAt: this.#iso() })!;
    this.#confirming.add(peer.id);
    const answer = await this.#d.client
      .call(
        connected,
        'POST',
        '/api/inference/pool/pair/confirm',
        { token, nodeUuid: me.nodeUuid, publicKey: me.publicKey },
        { timeoutMs: PAIRING_CALL_TIMEOUT_MS },
      )
      .finally(() => this.#confirming.delete(peer.id));
    // Unpaired while the callback was out: the row is gone, so there is no half pairing to report or to fix here.
    if (this.#d.store.get(peer.id) === null) throw removedWhileApproving(peer.nodeFqdn);
    const failure = !answer.ok
      ? answer.error
      : answer.status !== 200
        ? `HTTP ${answer.status}`
        : !isJsonObject(answer.json)
          ? // Every Hub answers a confirmation with a JSON object; a page (a web app at the name) is no Hub's.
            'HTTP 200 without a confirmation answer: something other than a Hub answers at that name'
          : null;
    if (failure !== null) {
      this.#d.logger.warn({ peer: peer.nodeFqdn }, `[HubPool] pairing confirmed locally but callback to ${peer.nodeFqdn} failed: ${failure}`);
      // Half paired: kept on the row so status names the fix until a good poll shows otherwise.
      const half = this.#d.store.update(peer.id, { confirmFailedAt: this.#iso() }) ?? connected;
      this.#d.onConnected(half);
      return { peer: half, callback: 'failed', reason: failure };
    }
    const claim = answer.ok ? readIdentityClaim(answer.json) : null;
    // A callback answer naming this Hub's own UUID names no peer: pinned, it would break this pairing.
    const learned = connected.peerNodeUuid === null && claim !== null && claim.nodeUuid !== me.nodeUuid && !this.#d.store.byUuid(claim.nodeUuid);
    const final =
      this.#d.store.update(peer.id, {
        confirmFailedAt: null,
        // Learned from a response: the requester has pinned our key, so this side signs at once.
        ...(learned ? { peerNodeUuid: claim.nodeUuid, peerPublicKey: claim.publicKey } : {}),
      }) ?? connected;
    this.#d.logger.info({ peer: peer.nodeFqdn }, 'pairing approved and confirmed');
    this.#d.onConnected(final);
    return { peer: final, callback: 'confirmed', reason: null };
  }

  /** Operator: reject a pending inbound request; the requester is told, best effort. */
  async reject(peer: PeerRow): Promise<{ notified: boolean }> {
    if (peer.direction !== 'inbound' || peer.status !== 'pending') {
      throw new HubError('HUB_ERR_CONFLICT', `${peer.nodeFqdn} is not a request waiting for this Hub's approval; use unpair to remove it`);
    }
    // Claimed before the call: an approve that starts while the requester is being told finds no request to approve.
    if (!this.#d.store.delete(peer.id))
      throw new HubError('HUB_ERR_CONFLICT', `the request from ${peer.nodeFqdn} is gone: it was approved, rejected or removed meanwhile`);
    const answer = await this.#d.client.call(peer, 'POST', '/api/inference/pool/pair/reject', {}, { timeoutMs: PAIRING_CALL_TIMEOUT_MS });
    return { notified: answer.ok && answer.status === 200 };
  }

  /** Operator: remove a pairing (or cancel a request this Hub sent); the peer is told when this Hub can authenticate to it. */
  async unpair(peer: PeerRow): Promise<{ notified: boolean }> {
    // Claimed before the call, as reject does: a second unpair at once (a double click, the CLI
    // beside the dashboard) told the peer again and, refused there, reported it as never told.
    if (!this.#d.store.delete(peer.id)) throw new HubError('HUB_ERR_CONFLICT', `${peer.nodeFqdn} is gone: it was unpaired or removed meanwhile`);
    this.#approvedThere.delete(peer.id);
    const canTell = peer.peerNodeUuid !== null || peer.presentTokenSealed !== null;
    const answer = canTell ? await this.#d.client.call(peer, 'POST', '/api/inference/pool/pair/unpair', {}, { timeoutMs: PAIRING_CALL_TIMEOUT_MS }) : null;
    this.#d.logger.info({ peer: peer.nodeFqdn }, 'peer unpaired');
    return { notified: answer !== null && answer.ok && answer.status === 200 };
  }

  // ---- the peer's side --------------------------------------------------------------------

  /** POST /pair/request: the one unauthenticated write, so the most constrained. */
  async receiveRequest(req: InboundRequest): Promise<Record<string, unknown>> {
    if (this.#d.poolOff() !== null) throw new HubError('HUB_ERR_POOL_DISABLED', 'Hub Pool is switched off on this Hub: it takes no pairing requests');
    this.#refuseWhileRotating();
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
    const parsed =
      typeof body.fromNodeFqdn === 'string' ? normalizePeerName(body.fromNodeFqdn) : { ok: false as const, reason: notText('fromNodeFqdn', body.fromNodeFqdn) };
    if (!parsed.ok) throw new HubError('HUB_ERR_PAIR_NAME_INVALID', `fromNodeFqdn refused: ${parsed.reason}`);
    const from = parsed.name;
    const keys = pairingSourceKeys(from, req.sourceIp);
    const limit = this.#d.limiter.check(keys);
    if (!limit.allowed)
      throw new HubError('HUB_ERR_PAIR_RATE_LIMITED', `too many refused pairing attempts from this source; retry in ${Math.ceil(limit.retryAfterMs / 1000)} s`);
    const self = await this.#d.self();
    if (!belongsToTailnet(from, self.tailnetSuffix)) throw new HubError('HUB_ERR_PAIR_OUTSIDE_TAILNET', `${from} is not a name on this Hub's tailnet`);
    if (from === self.nodeFqdn) throw new HubError('HUB_ERR_PAIR_SELF', 'a Hub cannot pair with itself');
    const member = this.#d.membership === undefined ? null : await this.#d.membership(from);
    if (member?.kind === 'not-member')
      throw new HubError('HUB_ERR_PAIR_OUTSIDE_TAILNET', `${from} is not a device on this Hub's tailnet (Tailscale Admin API)`);
    // Once per failed call: a repeat of a remembered failure is a stranger's request, not news.
    if (member?.kind === 'unknown')
      this.#d.logger[member.remembered ? 'debug' : 'warn'](
        { from, error: member.error },
        'could not ask the Tailscale Admin API whether the requester is on this tailnet; the request goes on, checked by its name suffix only',
      );
    const token = readToken(body.token);
    if (token === null) throw new HubError('HUB_ERR_BAD_REQUEST', 'token must be 32 random bytes, base64url');
    const withPin = body.pin !== undefined && body.pin !== null;
    // Without a PIN the keys are exchanged on the confirm, which goes by bearer token: refused here
    // with the setting on, so such a request could only ever end half paired.
    if (!withPin && this.#d.requireSigned())
      throw new HubError(
        'HUB_ERR_PAIR_PIN_REQUIRED',
        'this Hub takes signed peers only (poolRequireSignedPeers), so a pairing request must carry a PIN minted here',
      );
    const claim: IdentityClaim | null = withPin ? readIdentityClaim(body) : null;
    if (withPin && claim === null)
      throw new HubError(
        'HUB_ERR_BAD_REQUEST',
        "a request with a PIN must carry the sender's nodeUuid (a lower-case UUID) and publicKey (its 32-byte Ed25519 key in canonical unpadded base64url, 43 characters)",
      );
    // A refused PIN must leave nothing behind, this Hub's own identity included, and the sealing
    // below mints one on a Hub that has none. Such a Hub has no PIN outstanding either (minting a
    // PIN loads the identity first, peer-operator-routes.ts), so its check can run here, ahead of
    // anything that would mint; with an identity the check stays in its place below.
    if (claim !== null && (await this.#d.identity.loadExisting()) === null && !this.#d.pin.check(body.pin)) throw this.#pinRefused(keys, from);
    // Everything that waits comes first: from the PIN check to the insert nothing yields, so no
    // other request can take the name in between.
    // Sealing first: its refusal names no path, and this route answers anyone (the operator's
    // refusal from #requireIdentity quotes the secret's location).
    const sealed = await this.#d.identity.sealToken(token);
    const me = claim !== null ? await this.#requireIdentity() : null;
    // Again after the awaits: a rotation begun meanwhile has already listed the rows it removes.
    this.#refuseWhileRotating();
    // The requester may have dropped its expired request and sent a new one before this Hub's
    // sweep came round: the old row must not stand in for the new request.
    this.sweep();
    const existing = this.#d.store.byFqdn(from);
    const waiting = this.#d.store.list().filter((row) => row.direction === 'inbound' && row.status === 'pending');
    const row = {
      nodeFqdn: from,
      direction: 'inbound' as const,
      status: 'pending' as const,
      issuedTokenHash: null,
      presentTokenSealed: sealed,
      createdAt: this.#iso(),
      expiresAt: this.#iso(PAIRING_REQUEST_TTL_MS),
    };

    if (claim === null || me === null) {
      // A name this Hub already holds a row for is ignored without saying so (spec: a request stays pending).
      if (existing) {
        this.#noteCrossing(existing);
        return { received: true };
      }
      if (waiting.filter((r) => !r.pinVerified).length >= MAX_PENDING_INBOUND) {
        throw new HubError(
          'HUB_ERR_PAIR_PENDING_FULL',
          `${MAX_PENDING_INBOUND} pairing requests without a PIN already wait for approval here; approve or reject some, or pair with a PIN (cihub pool pairing-pin on this Hub), which these do not block`,
        );
      }
      this.#d.store.insert({ ...row, peerNodeUuid: null, peerPublicKey: null, pinVerified: false });
      this.#d.logger.info({ from, withPin: false }, 'pairing request received');
      return { received: true };
    }

    // With a PIN. Refusals that do not depend on it come first, so a right PIN is not spent on them.
    if (waiting.filter((r) => r.pinVerified).length >= MAX_PENDING_WITH_PIN) {
      throw new HubError(
        'HUB_ERR_PAIR_PENDING_FULL',
        `${MAX_PENDING_WITH_PIN} PIN-verified pairing requests already wait for approval here; approve or reject some first`,
      );
    }
    if (!this.#d.pin.check(body.pin)) throw this.#pinRefused(keys, from);
    // The caller has proved it read this Hub's screen: it is told plainly why a request cannot be
    // taken, and the PIN stays valid for a retry once that is fixed.
    if (claim.nodeUuid === me.nodeUuid) throw new HubError('HUB_ERR_PAIR_SELF', 'a Hub cannot pair with itself');
    // A request without a PIN under this name proves nothing (anyone can claim a name), so a PIN
    // request replaces it rather than being dropped behind it (issue 9, defect 11).
    const squatter = existing !== null && existing.direction === 'inbound' && existing.status === 'pending' && !existing.pinVerified ? existing : null;
    // No crossing to note here: refused, the sender keeps no row of its own (a request without a PIN is kept, above).
    if (existing !== null && squatter === null) throw new HubError('HUB_ERR_CONFLICT', receiverConflict(existing, self.nodeFqdn ?? 'the other Hub', from));
    const holder = this.#d.store.byUuid(claim.nodeUuid);
    if (holder !== null && holder.id !== squatter?.id) {
      throw new HubError(
        'HUB_ERR_CONFLICT',
        `${self.nodeFqdn} already holds a pairing with this Hub's node identity under the name ${holder.nodeFqdn}; remove it there (cihub pool unpair ${holder.nodeFqdn}) and send the request again with the same PIN`,
      );
    }
    // The PIN is spent only once the request is stored, and a request it replaces goes in the same
    // transaction: a write refused by the disk leaves the old request and a PIN to retry with.
    const stored = { ...row, peerNodeUuid: claim.nodeUuid, peerPublicKey: claim.publicKey, pinVerified: true };
    if (squatter === null) this.#d.store.insert(stored);
    else this.#d.store.replace(squatter.id, stored);
    this.#d.pin.consume();
    if (squatter !== null) this.#d.logger.warn({ from }, 'a PIN-verified pairing request replaced a request without a PIN under the same name');
    this.#d.logger.info({ from, withPin: true }, 'pairing request received');
    // The name, UUID and key are disclosed only to a caller that proved it read this Hub's screen.
    return { received: true, nodeFqdn: self.nodeFqdn, nodeUuid: me.nodeUuid, publicKey: me.publicKey };
  }

  /** The one refusal every wrong PIN gets, with its strike against the source. */
  #pinRefused(keys: ReturnType<typeof pairingSourceKeys>, from: string): HubError {
    this.#d.limiter.strike(keys);
    this.#d.logger.warn({ from }, 'refused a pairing PIN');
    return new HubError('HUB_ERR_PAIR_PIN_REFUSED', 'the pairing PIN was not accepted');
  }

  /**
   * Operator: a new key pair under the same UUID, and no pairings left. Every peer pinned the old
   * key, so each is told first, signed with that key; the answer names the ones not reached.
   */
  async rotateIdentity(): Promise<{ identity: IdentityState; unpaired: string[]; notReached: string[] }> {
    this.#refuseWhileRotating();
    this.#rotating = true;
    try {
      const rows = this.#d.store.list();
      // A row unpaired meanwhile by the operator's own call is that call's to report.
      const told = (row: PeerRow) =>
        this.unpair(row).then(
          (r) => r.notified,
          () => true,
        );
      const results = await Promise.all(rows.map(async (row) => ({ row, told: await told(row) })));
      const identity = await this.#d.identity.rotate();
      this.#d.store.deleteAll();
      this.#d.logger.warn({ peers: rows.length }, 'pool identity rotated; every pairing removed');
      return { identity, unpaired: results.map((r) => r.row.nodeFqdn), notReached: results.filter((r) => !r.told).map((r) => r.row.nodeFqdn) };
    } finally {
      this.#rotating = false;
    }
  }

  /** True while a rotation runs; pairing by address reads it too (pair-by-address.ts). */
  get rotating(): boolean {
    return this.#rotating;
  }

  #refuseWhileRotating(): void {
    if (this.#rotating) throw identityRotating();
  }

  /** POST /pair/confirm from the approving peer (already authenticated by the guard). */
  async receiveConfirm(peer: PeerRow, body: unknown): Promise<IdentityClaim> {
    if (!awaitsConfirmation(peer)) throw noConfirmationWaiting();
    const token = readToken((body as { token?: unknown } | null)?.token);
    const claim = readIdentityClaim(body);
    if (token === null || claim === null) throw new HubError('HUB_ERR_BAD_REQUEST', 'a confirmation carries token, nodeUuid and publicKey');
    const me = await this.#requireIdentity();
    // Every await comes before the checks: from them to the write nothing yields, so a PIN request
    // claiming the same UUID under another name cannot take it in between (the unique index would
    // then refuse the write, and the peer would get a 500 for a conflict).
    const sealed = await this.#d.identity.sealToken(token);
    // Re-read after the awaits: cancelled here, or pinned by another confirmation, meanwhile.
    const current = this.#d.store.get(peer.id);
    if (current === null || !awaitsConfirmation(current)) throw noConfirmationWaiting();
    if (current.peerNodeUuid !== null && (current.peerNodeUuid !== claim.nodeUuid || current.peerPublicKey !== claim.publicKey)) {
      throw new HubError('HUB_ERR_CONFLICT', 'the confirmation names another identity than the one this Hub pinned at the PIN exchange');
    }
    const holder = this.#d.store.byUuid(claim.nodeUuid);
    if (claim.nodeUuid === me.nodeUuid || (holder && holder.id !== current.id))
      throw new HubError('HUB_ERR_CONFLICT', 'that node UUID is already pinned to another peer');
    const learnedFromRequest = current.peerNodeUuid === null;
    const connected = this.#d.store.update(current.id, {
      status: 'connected',
      expiresAt: null,
      // Once the peer has been seen signing, its tokens authenticate nowhere: do not keep a new one.
      ...(current.signedSeenAt === null ? { presentTokenSealed: sealed } : {}),
      peerNodeUuid: claim.nodeUuid,
      peerPublicKey: claim.publicKey,
      // Learned from a request: this side cannot know its answer arrived, so it keeps its bearer for a while.
      ...(learnedFromRequest ? { bearerGraceUntil: this.#iso(this.#graceMs()) } : {}),
    });
    if (connected === null) throw noConfirmationWaiting();
    this.#approvedThere.delete(peer.id);
    this.#d.logger.info({ peer: peer.nodeFqdn }, 'pairing confirmed by the peer');
    this.#d.onConnected(connected);
    return { nodeUuid: me.nodeUuid, publicKey: me.publicKey };
  }

  /** POST /pair/upgrade: a bearer-only pairing moves onto pinned keys (docs/peer-protocol.md). */
  async receiveUpgrade(peer: PeerRow, body: unknown): Promise<IdentityClaim> {
    const claim = readIdentityClaim(body);
    if (claim === null) throw new HubError('HUB_ERR_BAD_REQUEST', 'an upgrade carries nodeUuid and publicKey');
    const me = await this.#requireIdentity();
    if (claim.nodeUuid === me.nodeUuid) throw new HubError('HUB_ERR_CONFLICT', "a peer cannot claim this Hub's own node UUID");
    if (peer.peerNodeUuid !== null && peer.peerNodeUuid !== claim.nodeUuid) throw new HubError('HUB_ERR_CONFLICT', 'this peer is pinned to another identity');
    const holder = this.#d.store.byUuid(claim.nodeUuid);
    if (holder && holder.id !== peer.id) throw new HubError('HUB_ERR_CONFLICT', 'that node UUID is already pinned to another peer');
    if (peer.peerNodeUuid === null) {
      this.#d.store.update(peer.id, { peerNodeUuid: claim.nodeUuid, peerPublicKey: claim.publicKey, bearerGraceUntil: this.#iso(this.#graceMs()) });
    }
    return { nodeUuid: me.nodeUuid, publicKey: me.publicKey };
  }

  /** POST /pair/reject or /pair/unpair from the peer: drop this Hub's half. */
  receiveRemoval(peer: PeerRow, kind: 'reject' | 'unpair'): void {
    this.#d.store.delete(peer.id);
    this.#approvedThere.delete(peer.id);
    this.#d.logger.info({ peer: peer.nodeFqdn }, kind === 'reject' ? 'the peer rejected the pairing request' : 'the peer unpaired this Hub');
  }

  /**
   * A peer called a peer route with valid credentials while this Hub's request to it still
   * waits: it holds the pairing as approved, so its confirmation never arrived here (half paired,
   * seen from the requester). Remembered in memory; the peer's next call notes it again.
   */
  noteApprovedThere(peer: PeerRow): void {
    if (peer.direction !== 'outbound' || peer.status !== 'pending') return;
    if (!this.#approvedThere.has(peer.id))
      this.#d.logger.warn({ peer: peer.nodeFqdn }, `${peer.nodeFqdn} acts as paired with this Hub, but its approval never arrived here (half paired)`);
    this.#approvedThere.set(peer.id, this.#approvedThere.get(peer.id) ?? this.#iso());
  }

  /** What this service holds about a row in memory: a half pairing seen from the requester, an approval's call back out. */
  notesOn(peerId: string): PairingNotes {
    return { approvedThereAt: this.#approvedThere.get(peerId) ?? null, confirming: this.#confirming.has(peerId) };
  }

  /** The peer asked to pair while this Hub's own request to it waits: the two requests crossed. */
  #noteCrossing(existing: PeerRow): void {
    if (existing.direction !== 'outbound' || existing.status !== 'pending' || existing.crossedAt !== null) return;
    this.#d.store.update(existing.id, { crossedAt: this.#iso() });
    this.#d.logger.warn(
      { peer: existing.nodeFqdn },
      `${existing.nodeFqdn} sent a pairing request while this Hub's own request to it waits; the two crossed, and each Hub sets the other's aside`,
    );
  }

  /**
   * Drops requests unanswered for 24 hours (both directions), and forgets every half pairing
   * noted for a request that no longer waits here: the ones expired just now, and any removed on a
   * path that does not forget its own (a request whose sending failed after the peer had called).
   */
  sweep(): string[] {
    const dropped = this.#d.store.deleteExpiredPending(this.#iso());
    if (dropped.length > 0) this.#d.logger.info({ peers: dropped }, 'expired pairing requests removed');
    for (const id of this.#approvedThere.keys()) {
      const row = this.#d.store.get(id);
      if (row === null || row.direction !== 'outbound' || row.status !== 'pending') this.#approvedThere.delete(id);
    }
    return dropped;
  }

  // ---- helpers ----------------------------------------------------------------------------

  #validName(raw: unknown): string {
    const parsed = typeof raw === 'string' ? normalizePeerName(raw) : { ok: false as const, reason: notText('nodeFqdn', raw) };
    if (!parsed.ok) throw new HubError('HUB_ERR_PAIR_NAME_INVALID', `not a peer name: ${parsed.reason}`);
    return parsed.name;
  }

  /** This Hub's tailnet name and suffix; refused while it has no name. */
  async #namedSelf(): Promise<{ nodeFqdn: string; tailnetSuffix: string | null }> {
    const self = await this.#d.self();
    if (self.nodeFqdn === null)
      throw new HubError('HUB_ERR_NO_TAILNET_NAME', 'this Hub has no tailnet name (connect Tailscale with MagicDNS, or set HUB_NODE_FQDN)');
    return { nodeFqdn: self.nodeFqdn, tailnetSuffix: self.tailnetSuffix };
  }

  /** The identity, or its 503; for an operator's action, a disk refusal is retried at once (NodeIdentity.load). */
  async #requireIdentity(opts: { operator?: boolean } = {}) {
    const identity = await this.#d.identity.load({ retryDiskRefusal: opts.operator === true });
    if (!identity.ok) throw identityUnavailable(identity);
    return identity;
  }

  #graceMs(): number {
    return Math.max(BEARER_GRACE_MIN_MS, BEARER_GRACE_POLLS * this.#d.pollSeconds() * 1000);
  }

  #iso(offsetMs = 0): string {
    return new Date(this.#d.clock.nowMs() + offsetMs).toISOString();
  }

  #pairingRefusal(name: string, answer: Awaited<ReturnType<PeerClient['call']>>): HubError {
    if (!answer.ok) {
      this.#d.logger.warn({ peer: name, error: answer.error }, 'could not reach the peer to send the pairing request');
      return new HubError(
        'HUB_ERR_PEER_UNREACHABLE',
        `could not reach ${name} (${answer.error}); check that it is online, on this tailnet and published at https://${name} with the certificate Tailscale Serve issues for that name`,
      );
    }
    // Every Hub refuses with its error body, so a status without one (a NAS's 404 page, a proxy's
    // 401) is no refusal: calling it a decline sent operators after a Hub that was never asked.
    if (!hasHubError(answer.json)) {
      this.#d.logger.warn(
        { peer: name, status: answer.status },
        `the pairing request to ${name} was answered HTTP ${answer.status} without a Hub's error: no Hub answers at that name`,
      );
      return new HubError(
        'HUB_ERR_PEER_UNREACHABLE',
        `no Hub answers at https://${name}: the answer was HTTP ${answer.status} without a Hub's error, so the device there is not a Hub, or Tailscale Serve there does not publish the Hub at that name; nothing was kept here`,
      );
    }
    const said = (answer.json as { error?: { message?: unknown } } | null)?.error?.message;
    if (answer.status === 401) {
      this.#d.logger.warn({ peer: name }, 'Peer refused the pairing PIN');
      return new HubError(
        'HUB_ERR_PEER_REFUSED_PIN',
        `${name} refused the pairing PIN (wrong, expired, already used, replaced, or lost when that Hub restarted); mint a fresh one there with cihub pool pairing-pin`,
      );
    }
    // Both spellings the docs tell operators to search for: "declined pairing request" and "declined the pairing request".
    const declined = declinedBecause(name, answer.status, said);
    this.#d.logger.warn(
      { peer: name, status: answer.status, reason: peerRefusalReason(said) },
      `Peer declined pairing request (${answer.status}): ${declined}`,
    );
    return new HubError('HUB_ERR_PEER_REFUSED', declined);
  }
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an answer carries a Hub's error body (`{ error: { code: 'HUB_ERR_…', message } }`), as every Hub's refusal does. */
function hasHubError(answer: unknown): boolean {
  const error = (answer as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && error.code.startsWith('HUB_ERR_') && typeof error.message === 'string';
}

/**
 * Whether a 200 to a pairing request is a Hub's answer: every Hub says `received: true`, and one
 * that took a PIN adds its identity. Anything else (an HTML page, an empty body, other JSON) is not.
 */
function isPairingAnswer(answer: unknown): boolean {
  return (answer as { received?: unknown } | null)?.received === true || readIdentityClaim(answer) !== null;
}

/**
 * The name a pairing answer gives for the Hub that sent it, read as a peer name; null when it
 * gives none that is one. The far Hub's claim is repeated in the operator's error, so what is
 * not a name (terminal escapes, tens of KiB) is never echoed, and the asked name in another
 * spelling (upper case, a trailing dot) reads as that name.
 */
function nameIn(answer: unknown): string | null {
  const raw = (answer as { nodeFqdn?: unknown } | null)?.nodeFqdn;
  const parsed = typeof raw === 'string' ? normalizePeerName(raw) : null;
  return parsed?.ok ? parsed.name : null;
}

/** Why this Hub cannot send a request to a name it already holds a row for, with the fix. */
function localConflict(existing: PeerRow): string {
  const name = existing.nodeFqdn;
  if (existing.direction === 'inbound' && existing.status === 'pending') {
    return `${name} has already asked to pair with this Hub: approve its request instead of sending one back (cihub pool approve ${name})`;
  }
  if (existing.status === 'pending') {
    return `this Hub has already sent ${name} a request, which waits for its approval; to send a new one, cancel it first (cihub pool unpair ${name})`;
  }
  return `this Hub is already paired with ${name} (${existing.status}); to pair again, unpair first (cihub pool unpair ${name})`;
}

/** What the receiver tells a PIN-carrying requester whose name it already holds a row for. */
function receiverConflict(existing: PeerRow, self: string, from: string): string {
  if (existing.direction === 'outbound' && existing.status === 'pending') {
    return `${self} has sent ${from} a pairing request of its own, still waiting, so the two crossed; cancel that one there (cihub pool unpair ${from} on ${self}) and send this request again with the same PIN`;
  }
  return `${self} already holds a row for ${from} (${existing.direction}, ${existing.status}), perhaps from before a reset; remove it there (cihub pool unpair ${from} on ${self}) and send the request again with the same PIN`;
}

/** The requester's answer when its own operator cancelled the request while it was being sent. */
function cancelledWhileSent(name: string, withdrawn: boolean | null): string {
  const cancelled = `the request to ${name} was cancelled on this Hub while it was being sent`;
  if (withdrawn === true) return `${cancelled}; it has been withdrawn there too`;
  if (withdrawn === false) return `${cancelled}; withdrawing it there failed, so reject it on ${name}`;
  return `${cancelled}; ${name} holds it until it expires or is rejected there, and approving it there pairs nothing`;
}

/** Whether a row can take a confirmation: a request this Hub sent, still waiting or already pinned to a key. */
function awaitsConfirmation(row: PeerRow): boolean {
  return row.direction === 'outbound' && (row.status === 'pending' || row.peerNodeUuid !== null);
}

function noConfirmationWaiting(): HubError {
  return new HubError('HUB_ERR_CONFLICT', 'no request of this Hub is waiting for that confirmation');
}

/** The approver's answer when the request it was approving was removed meanwhile. */
function removedWhileApproving(name: string): HubError {
  return new HubError(
    'HUB_ERR_CONFLICT',
    `the request from ${name} was removed while approving it (rejected or unpaired meanwhile); nothing is paired on this Hub`,
  );
}

/** What the requester says when the answer to its PIN request describes another Hub than the one asked. */
function answerMismatch(
  kind: 'self' | 'other-name' | 'held',
  asked: string,
  named: string | null,
  heldAs: string | null,
  self: string,
  retracted: boolean,
): string {
  const after = retracted ? 'the request was withdrawn there' : `the request could not be withdrawn there (on it, run cihub pool unpair ${self})`;
  switch (kind) {
    case 'self':
      return `${asked} is this Hub itself; a Hub cannot pair with itself`;
    case 'other-name':
      return `the Hub answering at ${asked} calls itself ${named ?? '(no usable name)'}; ${after}, and its PIN is spent; mint a fresh PIN there (cihub pool pairing-pin) and pair by the name it gave (cihub pool pair ${named ?? '<its name>'} --pin <digits>)`;
    case 'held':
      return `this Hub already holds a pairing with that Hub's node identity under the name ${heldAs ?? '(another name)'}; ${after}, and its PIN is spent; remove the old row here (cihub pool unpair ${heldAs ?? '<old name>'}), mint a fresh PIN there (cihub pool pairing-pin) and pair again`;
  }
}
