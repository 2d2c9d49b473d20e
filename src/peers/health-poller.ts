/**
 * Polls every paired peer's /capabilities on the poolHealthPollSeconds cadence (15 s budget).
 * Three failures in a row mark a peer unreachable and the first success restores it; a peer
 * that refuses this Hub backs off from two polls to 15 minutes, and one whose identity changed
 * leaves routing on its first strike. The tick also applies renames the guard recorded, rolls
 * back a pinned key whose grace window closed unseen, and sweeps expired requests.
 */
import type { Logger } from 'pino';
import type { PeerRow, PeerStore } from '../store/peers.js';
import type { Background, BackgroundHandle } from '../util/background.js';
import { elapsedMs, type Clock } from '../util/clock.js';
import type { PairingService } from '../pairing/pairing-service.js';
import { readIdentityClaim } from '../pairing/identity-claim.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import { PEER_CAPABILITIES_MAX_BYTES, PEER_CAPABILITIES_MAX_STRUCTURE, type CredentialGap, type PeerClient } from './peer-client.js';
import { judgeProbe, type ProbeFailureKind } from './probe-failure.js';
import { peerAnsweredLine, peerFailedLine, type PeerProbeLine } from './probe-log.js';
import type { PeerCapabilities } from './capabilities.js';

/** Budget for one health probe: 15 s. */
export const HEALTH_PROBE_TIMEOUT_MS = 15_000;
/** Failures in a row that mark a peer unreachable. */
export const UNREACHABLE_AFTER_FAILURES = 3;
/** Longest back-off for a peer that refuses this Hub: 15 minutes. */
export const MAX_REFUSAL_BACKOFF_MS = 15 * 60_000;
/** How often the scheduler looks for due work. */
const TICK_MS = 1_000;
/** How often expired pairing requests are swept. */
const SWEEP_EVERY_MS = 60_000;

export interface PeerHealth {
  /** The last failure's kind; null after a success. */
  readonly probeFailure: ProbeFailureKind | null;
  readonly probeFailureSince: string | null;
  /** For cannot_authenticate, what this Hub lacks; null otherwise. */
  readonly probeFailureGap: CredentialGap | null;
  /** The last good capabilities answer and when it arrived; null before the first. */
  readonly capabilities: PeerCapabilities | null;
  readonly capabilitiesAtMs: number | null;
  /** What this Hub had forwarded to the peer when the snapshot arrived (the snapshot counts those too). */
  readonly forwardedAtSnapshot: number;
  /** When the peer said, signed, that it was shutting down; null once a poll succeeds again, or if it never did. */
  readonly leftAt: string | null;
}

interface State {
  probeFailure: ProbeFailureKind | null;
  probeFailureSince: string | null;
  probeFailureGap: CredentialGap | null;
  refusals: number;
  /**
   * When the last probe ended; null when the next tick should poll (a new peer, pollSoon). The
   * due time is worked out from this at each tick with the cadence setting as it is then, so a
   * changed poolHealthPollSeconds applies from each peer's next poll (reference "Operator settings").
   */
  lastPolledAtMs: number | null;
  capabilities: PeerCapabilities | null;
  capabilitiesAtMs: number | null;
  forwardedAtSnapshot: number;
  leftAt: string | null;
  /** The poller's notice count (#notices) the leaving notice took; null exactly when leftAt is. */
  leftNotice: number | null;
  polling: boolean;
  /** pollSoon was asked while a probe was out: that probe read the row before the change, so poll again. */
  pollAgain: boolean;
}

export interface HealthPollerDeps {
  readonly store: PeerStore;
  readonly client: PeerClient;
  readonly pairing: PairingService;
  readonly identity: NodeIdentity;
  readonly pollSeconds: () => number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Requests this Hub has forwarded to a peer (by name) and not finished reading. */
  readonly forwardsTo: (peerName: string) => number;
  /** Housekeeping that runs with the expiry sweep (once a minute). */
  readonly onTick?: (nowMs: number) => void;
  /** Owns the tick and every probe: a failure (a locked store, say) is logged and the next tick runs. */
  readonly background: Background;
}

export class HealthPoller {
  readonly #d: HealthPollerDeps;
  readonly #states = new Map<string, State>();
  readonly #renames = new Map<string, string>();
  #ticker: BackgroundHandle | null = null;
  /** Stopped for shutdown: a probe still out then records nothing (the store may be closed by the time it ends). */
  #stopped = false;
  #lastSweepMs = 0;
  /**
   * Leaving notices taken so far, on every peer. A probe reads it as it starts, so whether the
   * probe began before or after a notice is this process's own order of events, not the wall
   * clock's: compared by time, a notice taken before the clock was set back lay ahead of every
   * probe begun after it, and the peer's good answers were thrown away until the clock caught up.
   */
  #notices = 0;

  constructor(deps: HealthPollerDeps) {
    this.#d = deps;
  }

  start(): void {
    this.#stopped = false;
    // The tick only starts the probes: one hung peer (up to 15 s) must not hold up the others' polls.
    this.#ticker ??= this.#d.background.every('peer health tick', TICK_MS, () => void this.#startTick());
  }

  stop(): void {
    this.#stopped = true;
    this.#ticker?.stop();
    this.#ticker = null;
  }

  /** What the poller knows of a peer, for status and (later) placement. */
  health(peerId: string): PeerHealth {
    const s = this.#states.get(peerId);
    return {
      probeFailure: s?.probeFailure ?? null,
      probeFailureSince: s?.probeFailureSince ?? null,
      probeFailureGap: s?.probeFailureGap ?? null,
      capabilities: s?.capabilities ?? null,
      capabilitiesAtMs: s?.capabilitiesAtMs ?? null,
      forwardedAtSnapshot: s?.forwardedAtSnapshot ?? 0,
      leftAt: s?.leftAt ?? null,
    };
  }

  /**
   * The peer said (in a signed leaving notice) that it is shutting down: it stops being a
   * candidate now, instead of after three failed polls, and comes back with its first good poll.
   * The poll cadence is left alone, so a Hub that restarts is taken back within one interval.
   */
  noteLeft(peer: PeerRow): void {
    const s = this.#state(peer.id);
    const now = this.#d.clock.nowMs();
    s.leftAt = new Date(now).toISOString();
    this.#notices += 1;
    s.leftNotice = this.#notices;
    s.capabilities = null;
    s.capabilitiesAtMs = null;
    if (peer.status === 'connected') this.#d.store.update(peer.id, { status: 'unreachable' });
    this.#d.logger.info({ peer: peer.nodeFqdn }, `${peer.nodeFqdn} is shutting down: no work goes to it until its next good poll`);
  }

  /** Records a new name a signed peer presented; applied on the next tick. */
  noteRename(peerId: string, newName: string): void {
    this.#renames.set(peerId, newName);
  }

  /** Polls a peer at the next tick (a new pairing is verified within a poll, not after a whole interval). */
  pollSoon(peer: PeerRow): void {
    const s = this.#state(peer.id);
    s.lastPolledAtMs = null;
    // The probe out now would reschedule a whole interval away when it ends and lose this request.
    if (s.polling) s.pollAgain = true;
  }

  /** Forgets a peer's cached capabilities until its next good poll (a peer that refused a forward). */
  dropCapabilities(peerId: string): void {
    const s = this.#states.get(peerId);
    if (s) {
      s.capabilities = null;
      s.capabilitiesAtMs = null;
    }
  }

  /** One tick: housekeeping, then a probe of every peer that is due; resolves when those probes are done. */
  async tick(): Promise<void> {
    await Promise.all(this.#startTick());
  }

  /**
   * Every step of a tick is owned by the background runner on its own, so a store that refuses
   * one write (SQLITE_BUSY, SQLITE_FULL, SQLITE_READONLY) costs that step and not the process,
   * nor the other peers' probes. Returns the probes started (they never reject).
   */
  #startTick(): Promise<void>[] {
    const bg = this.#d.background;
    const now = this.#d.clock.nowMs();
    const pollMs = this.#d.pollSeconds() * 1000;
    // elapsedMs: after the wall clock went back, waiting for it to catch up would stop the sweep for as long.
    if (elapsedMs(now, this.#lastSweepMs) >= SWEEP_EVERY_MS) {
      this.#lastSweepMs = now;
      void bg.settle('pairing request sweep', () => this.#d.pairing.sweep());
      const onTick = this.#d.onTick;
      if (onTick) void bg.settle('peer housekeeping', () => onTick(now));
    }
    void bg.settle('peer renames', () => this.#applyRenames());
    const rows = this.#d.store.list();
    for (const id of this.#states.keys()) if (!rows.some((r) => r.id === id)) this.#states.delete(id);
    return rows.map((row) =>
      bg.settle('peer health probe', async () => {
        this.#rollBackLapsedGrace(row, now);
        const s = this.#state(row.id);
        // A row this Hub has just approved is marked connected before its confirmation reaches the
        // requester, which answers a probe meanwhile with 401 and warns of a half pairing: the
        // approval polls it as soon as the confirmation is answered (onConnected).
        if (row.status === 'pending' || s.polling || !pollDue(s, now, pollMs) || this.#d.pairing.notesOn(row.id).confirming) return;
        s.polling = true;
        try {
          await this.probe(row);
        } finally {
          s.polling = false;
          if (s.pollAgain) {
            s.pollAgain = false;
            s.lastPolledAtMs = null;
          }
        }
      }),
    );
  }

  /** One health probe of one peer, and what follows from its answer. */
  async probe(row: PeerRow): Promise<void> {
    const s = this.#state(row.id);
    const noticesAtStart = this.#notices;
    this.#d.logger.debug({ peer: row.nodeFqdn }, `capabilities probe of ${row.nodeFqdn} started`);
    const answer = await this.#d.client.call(row, 'GET', '/api/inference/pool/capabilities', undefined, {
      timeoutMs: HEALTH_PROBE_TIMEOUT_MS,
      maxBytes: PEER_CAPABILITIES_MAX_BYTES,
      maxStructure: PEER_CAPABILITIES_MAX_STRUCTURE,
    });
    if (this.#stopped) return;
    const now = this.#d.clock.nowMs();
    const current = this.#d.store.get(row.id);
    if (current === null) return;
    const verdict = judgeProbe(answer);
    if (verdict.ok) {
      // An answer the peer gave before it said it was leaving does not take it back.
      if (s.leftNotice !== null && s.leftNotice > noticesAtStart) return;
      const caps = verdict.capabilities;
      s.capabilities = caps;
      s.capabilitiesAtMs = now;
      s.forwardedAtSnapshot = this.#d.forwardsTo(current.nodeFqdn);
      this.#log(peerAnsweredLine(row.nodeFqdn, s.probeFailure !== null || current.status !== 'connected', current.consecutiveFailures));
      s.probeFailure = null;
      s.probeFailureSince = null;
      s.probeFailureGap = null;
      s.leftAt = null;
      s.leftNotice = null;
      s.refusals = 0;
      s.lastPolledAtMs = now;
      // A good poll also settles a half pairing: the peer answered as paired, so the confirmation arrived after all.
      this.#d.store.update(row.id, {
        status: 'connected',
        lastSeenAt: new Date(now).toISOString(),
        consecutiveFailures: 0,
        ...(current.confirmFailedAt !== null ? { confirmFailedAt: null } : {}),
      });
      if (current.peerNodeUuid === null && caps.nodeUuid) await this.#upgrade(current);
      return;
    }
    // A failed poll leaves the last trusted snapshot, and any half pairing, as they were.
    const failures = current.consecutiveFailures + 1;
    const failedKind = verdict.kind;
    const previousKind = s.probeFailure;
    if (previousKind !== failedKind) s.probeFailureSince = new Date(now).toISOString();
    s.probeFailure = failedKind;
    s.probeFailureGap = verdict.gap;
    // A probe never sent costs the peer nothing, and polling at the normal cadence clears the
    // failure within a poll of the operator's fix; so only the peer's refusals back off.
    const refusal = failedKind === 'unauthorized' || failedKind === 'identity_changed';
    s.refusals = refusal ? s.refusals + 1 : 0;
    // A refusal is an answer: the peer that said it was leaving is back, so the notice no longer
    // says why it takes no work (its data dir recreated while it was down reads identity changed,
    // which waiting does not fix, and its row must not say it rejoins by itself).
    if (refusal && s.leftNotice !== null && s.leftNotice <= noticesAtStart) {
      s.leftAt = null;
      s.leftNotice = null;
    }
    s.lastPolledAtMs = now;
    const unreachable = failedKind === 'identity_changed' || failures >= UNREACHABLE_AFTER_FAILURES;
    this.#d.store.update(row.id, { consecutiveFailures: failures, ...(unreachable ? { status: 'unreachable' } : {}) });
    this.#log(
      peerFailedLine(row.nodeFqdn, previousKind, {
        kind: failedKind,
        reason: verdict.reason,
        failures,
        markedUnreachable: unreachable && current.status !== 'unreachable',
      }),
    );
  }

  #log(line: PeerProbeLine | null): void {
    if (line !== null) this.#d.logger[line.level](line.fields, line.msg);
  }

  async #upgrade(row: PeerRow): Promise<void> {
    const identity = await this.#d.identity.load();
    if (!identity.ok) return;
    const answer = await this.#d.client.call(
      row,
      'POST',
      '/api/inference/pool/pair/upgrade',
      { nodeUuid: identity.nodeUuid, publicKey: identity.publicKey },
      { timeoutMs: HEALTH_PROBE_TIMEOUT_MS },
    );
    if (this.#stopped) return;
    const claim = answer.ok && answer.status === 200 ? readIdentityClaim(answer.json) : null;
    // A peer that answers with this Hub's own UUID names no peer: the receiving side refuses the same claim.
    if (claim === null || claim.nodeUuid === identity.nodeUuid) return;
    const holder = this.#d.store.byUuid(claim.nodeUuid);
    // The peer's own upgrade can cross this one and pin its key on this very row (learned from a
    // request, so in a grace window). That row is no conflict: the same key, now also learned from a
    // response, means the peer holds ours. Left in the window, both Hubs presented bearer tokens and
    // neither signed until both windows rolled back (upgrade-crossing.test.ts).
    if (holder !== null && (holder.id !== row.id || holder.peerPublicKey !== claim.publicKey)) return;
    // Learned from a response: the peer has pinned our key, so this side signs from now on.
    this.#d.store.update(row.id, { peerNodeUuid: claim.nodeUuid, peerPublicKey: claim.publicKey, bearerGraceUntil: null });
    this.#d.logger.info({ peer: row.nodeFqdn }, 'pairing upgraded from bearer tokens to signed requests');
  }

  #rollBackLapsedGrace(row: PeerRow, now: number): void {
    if (row.bearerGraceUntil === null || row.signedSeenAt !== null || Date.parse(row.bearerGraceUntil) > now) return;
    // Enforcing a key the peer never used would lock out a peer that behaves correctly: roll back, retry later.
    this.#d.store.update(row.id, { peerNodeUuid: null, peerPublicKey: null, bearerGraceUntil: null });
    this.#d.logger.warn(
      { peer: row.nodeFqdn },
      'no signed request seen from the peer within the grace window; its key is unpinned and the exchange will be retried',
    );
  }

  #applyRenames(): void {
    for (const [id, name] of this.#renames) {
      this.#renames.delete(id);
      const row = this.#d.store.get(id);
      // Only an approved pairing follows its peer's new name; the guard records none for a request.
      if (row === null || row.status === 'pending' || row.nodeFqdn === name) continue;
      if (this.#d.store.byFqdn(name)) {
        this.#d.logger.warn({ peer: row.nodeFqdn, newName: name }, 'a signed peer now uses a name another row holds; rename not applied');
        continue;
      }
      this.#d.store.update(id, { nodeFqdn: name });
      this.#d.logger.info({ from: row.nodeFqdn, to: name }, 'peer renamed (authenticated by its signature)');
    }
  }

  #state(id: string): State {
    let s = this.#states.get(id);
    if (!s) {
      s = {
        probeFailure: null,
        probeFailureSince: null,
        probeFailureGap: null,
        refusals: 0,
        lastPolledAtMs: null,
        capabilities: null,
        capabilitiesAtMs: null,
        forwardedAtSnapshot: 0,
        leftAt: null,
        leftNotice: null,
        polling: false,
        pollAgain: false,
      };
      this.#states.set(id, s);
    }
    return s;
  }
}

/**
 * How long after its last probe a peer is polled again, at the cadence set now. Refusals do not
 * clear by waiting, so they back off from two polls, doubling, to at most 15 minutes; any other
 * outcome keeps the cadence.
 */
function pollWaitMs(refusals: number, pollMs: number): number {
  return refusals > 0 ? Math.min(MAX_REFUSAL_BACKOFF_MS, 2 * pollMs * 2 ** (refusals - 1)) : pollMs;
}

/**
 * Whether a peer's next poll is due. The schedule is on the wall clock (the injected Clock), so
 * a clock set back (NTP correcting a skew, an operator fixing the date) would otherwise hold
 * every poll until the clock caught up, 10 minutes for a 10-minute correction, and a pairing
 * refused for skew would stay refused that long after the clocks agreed again. A last poll in
 * the future can only mean that, and is due now.
 */
function pollDue(s: State, nowMs: number, pollMs: number): boolean {
  if (s.lastPolledAtMs === null || s.lastPolledAtMs > nowMs) return true;
  return nowMs >= s.lastPolledAtMs + pollWaitMs(s.refusals, pollMs);
}
