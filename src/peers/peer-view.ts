/**
 * A peer as the operator sees it (GET /peers and status): the row without its token columns,
 * with its auth mode, fingerprint, probe failure and cached capabilities. Data only; the CLI
 * and the dashboard word it.
 */
import { keyFingerprintOrNull } from '../identity/fingerprint.js';
import type { ContainerRollup } from './capabilities.js';
import type { PeerRow } from '../store/peers.js';
import { reportedAuthMode } from './auth-mode.js';
import { snapshotTrusted } from './usable-peers.js';
import type { PeerHealth } from './health-poller.js';
import { pairingProblem, type PairingNotes, type PairingProblem } from './pairing-problem.js';
import { probeFailureAction, type ProbeFailureKind } from './probe-failure.js';

export interface PeerView {
  readonly id: string;
  readonly nodeFqdn: string;
  readonly direction: PeerRow['direction'];
  readonly status: PeerRow['status'];
  readonly enabled: boolean;
  readonly authMode: 'signed' | 'bearer' | 'none';
  /**
   * The peer's key fingerprint; null when no key is pinned (a request without a PIN says only a
   * name), or when the stored key cannot be read as one.
   */
  readonly fingerprint: string | null;
  readonly pinVerified: boolean;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly lastSeenAt: string | null;
  readonly consecutiveFailures: number;
  /** A pairing state that needs an operator on each Hub (half paired, crossed requests), with the fix; null when none. */
  readonly pairingProblem: PairingProblem | null;
  /** Why the last probe failed and what to do; null when the last probe succeeded or none ran. */
  readonly probeFailure: { readonly kind: ProbeFailureKind; readonly since: string | null; readonly action: string } | null;
  /**
   * When the peer said, in a signed leaving notice, that it was shutting down; null when it has
   * not, or has answered a poll since (it is then back).
   */
  readonly leftAt: string | null;
  /** From the last good poll; null before it (not an empty inventory). */
  readonly acceptingWork: boolean | null;
  /**
   * The peer's own count of requests in flight, from its last good poll; null before one, when it
   * sent none, or when that poll is older than the snapshot trust (usable-peers.ts), as containers.
   */
  readonly inFlightRequests: number | null;
  readonly hardwareTier: string | null;
  readonly backends: readonly { readonly kind: string; readonly models: readonly string[] }[] | null;
  /**
   * The peer's container counts and totals from its last good poll, validated whole on read
   * (capabilities.ts); null when not reported (an older build, poolShareContainerStats off
   * there, no recent sample, a rejected rollup, or not polled yet) or when that poll is older
   * than the snapshot trust (usable-peers.ts). Never zeros in its place.
   */
  readonly containers: ContainerRollup | null;
  /** The peer's advertised prompt ceiling; null when it names none or has not been polled (backends null tells which). */
  readonly maxPromptTokens: number | null;
  /** The peer's advertised context cap; null when it names none or has not been polled (backends null tells which). */
  readonly maxNumCtx: number | null;
  /** Models the peer lists but says it cannot serve now (no candidates there); null before its first good poll. */
  readonly unservableModels: readonly string[] | null;
  /**
   * Whether the figures above are the peer's word now: true while it is connected, its last
   * check succeeded and that poll is within the snapshot trust; false when they are what it
   * said at lastSeenAt and must be worded "as last seen"; null before its first good poll
   * (there are no figures).
   */
  readonly figuresCurrent: boolean | null;
}

/** What a peer's view is read against besides its row and health. */
export interface PeerViewContext {
  /** This Hub's tailnet name; null when it has none. */
  readonly selfName: string | null;
  /** What the pairing service holds about the row in memory (pairing-service.ts). */
  readonly pairing: PairingNotes;
  readonly nowMs: number;
  readonly pollSeconds: number;
}

export function peerView(row: PeerRow, health: PeerHealth, ctx: PeerViewContext): PeerView {
  const { selfName } = ctx;
  const caps = health.capabilities;
  const trusted = snapshotTrusted(health.capabilitiesAtMs, ctx.nowMs, ctx.pollSeconds);
  return {
    id: row.id,
    nodeFqdn: row.nodeFqdn,
    direction: row.direction,
    status: row.status,
    enabled: row.enabled,
    authMode: reportedAuthMode(row),
    fingerprint: row.peerPublicKey === null ? null : keyFingerprintOrNull(row.peerPublicKey),
    pinVerified: row.pinVerified,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastSeenAt: row.lastSeenAt,
    consecutiveFailures: row.consecutiveFailures,
    pairingProblem: pairingProblem(row, selfName, ctx.pairing),
    probeFailure:
      health.probeFailure === null
        ? null
        : {
            kind: health.probeFailure,
            since: health.probeFailureSince,
            action: probeFailureAction(health.probeFailure, row.nodeFqdn, selfName, health.probeFailureGap),
          },
    leftAt: health.leftAt,
    acceptingWork: caps?.acceptingWork ?? null,
    // Freshness-gated like containers: a load figure from a peer gone quiet would read as its load now.
    inFlightRequests: trusted ? (caps?.inFlightRequests ?? null) : null,
    hardwareTier: caps?.hardwareTier ?? null,
    backends: caps?.backends ?? null,
    // Freshness-gated (spec, "Absent means not reported, never zero"): the last counts of a peer
    // that stopped answering would read as a machine that went idle.
    containers: trusted ? (caps?.containers ?? null) : null,
    maxPromptTokens: caps?.maxPromptTokens ?? null,
    maxNumCtx: caps?.maxNumCtx ?? null,
    // A peer that sent no list names none.
    unservableModels: caps === null ? null : (caps.unservableModels ?? []),
    figuresCurrent: caps === null ? null : row.status === 'connected' && health.probeFailure === null && trusted,
  };
}
