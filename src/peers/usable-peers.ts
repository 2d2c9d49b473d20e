/**
 * Which peers placement may send work to, and how loaded each reads (spec, "Ranking" and
 * "Kill switches"): connected, enabled here, taking work, with a snapshot no older than three
 * health polls. An older snapshot is discarded: the peer then offers nothing rather than
 * stale models, and rejoins with its next good poll.
 */
import type { PeerStore } from '../store/peers.js';
import { peerOrigin } from '../tailnet/peer-origins.js';
import { peerPressure, peerQueueDepth } from '../placement/peer-load.js';
import type { UsablePeer } from '../placement/candidates.js';
import type { PeerHealth } from './health-poller.js';

/** A snapshot is trusted for three polls (90 s at the default cadence). */
export const SNAPSHOT_TRUST_POLLS = 3;

export interface UsablePeersInput {
  readonly store: PeerStore;
  readonly health: (peerId: string) => PeerHealth;
  /** Requests this Hub has forwarded to the peer and not finished reading. */
  readonly forwarded: (peerName: string) => number;
  readonly origins: ReadonlyMap<string, string>;
  readonly nowMs: number;
  readonly pollSeconds: number;
}

export function usablePeers(input: UsablePeersInput): UsablePeer[] {
  const maxAgeMs = SNAPSHOT_TRUST_POLLS * input.pollSeconds * 1000;
  const out: UsablePeer[] = [];
  for (const row of input.store.list()) {
    if (row.status !== 'connected' || !row.enabled) continue;
    const h = input.health(row.id);
    const caps = h.capabilities;
    if (caps === null || h.capabilitiesAtMs === null || input.nowMs - h.capabilitiesAtMs > maxAgeMs || !caps.acceptingWork) continue;
    const forwarded = input.forwarded(row.nodeFqdn);
    out.push({
      peerId: row.id,
      name: row.nodeFqdn,
      origin: peerOrigin(row.nodeFqdn, input.origins),
      backends: caps.backends,
      queueDepth: peerQueueDepth(forwarded, caps.inFlightRequests, h.forwardedAtSnapshot),
      hardwareTier: caps.hardwareTier,
      pressure: peerPressure(caps.gpuPressure, forwarded),
      unservableModels: caps.unservableModels ?? [],
      modelDetails: caps.modelDetails ?? new Map(),
      maxPromptTokens: caps.maxPromptTokens,
      maxNumCtx: caps.maxNumCtx,
      ollamaSlots: caps.ollamaSlots,
      throughput: caps.throughput,
      snapshotAtMs: h.capabilitiesAtMs,
    });
  }
  return out;
}
