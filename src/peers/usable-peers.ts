/**
 * Which peers placement may send work to, and how loaded each reads (spec, "Ranking" and
 * "Kill switches"): connected, enabled here, taking work, with a snapshot. A snapshot older
 * than three health polls is trusted for nothing it says about load: the peer then ranks
 * mid-load (UNKNOWN_PEER_LOAD over this Hub's live forwards, the unknown pressure band), so a
 * node gone quiet is never read as idle, and it stays a candidate for the models it listed
 * (a peer that is really gone turns unreachable on its third failed poll; failover covers the gap).
 */
import type { PeerRow } from '../store/peers.js';
import { elapsedMs } from '../util/clock.js';
import { peerOrigin } from '../tailnet/peer-origins.js';
import { peerPressure, peerQueueDepth } from '../placement/peer-load.js';
import type { UsablePeer } from '../placement/candidates.js';
import type { PeerHealth } from './health-poller.js';

/** A snapshot is trusted for three polls (90 s at the default cadence). */
export const SNAPSHOT_TRUST_POLLS = 3;

/**
 * Whether a snapshot taken at `atMs` is still trusted for what it says about load (null: never
 * taken). One taken before the wall clock was set back lies ahead of now and is not: the poller
 * asks again at its next tick (health-poller.ts, pollDue), and until then the peer ranks mid-load
 * rather than on a report that would otherwise count as fresh for as long as the step (clock.ts, elapsedMs).
 */
export function snapshotTrusted(atMs: number | null, nowMs: number, pollSeconds: number): boolean {
  return atMs !== null && elapsedMs(nowMs, atMs) <= SNAPSHOT_TRUST_POLLS * pollSeconds * 1000;
}

export interface UsablePeersInput {
  /** The peer rows (the PeerStore); only these fields are read. */
  readonly store: { list(): readonly Pick<PeerRow, 'id' | 'nodeFqdn' | 'status' | 'enabled'>[] };
  readonly health: (peerId: string) => PeerHealth;
  /** Requests this Hub has forwarded to the peer and not finished reading. */
  readonly forwarded: (peerName: string) => number;
  readonly origins: ReadonlyMap<string, string>;
  readonly nowMs: number;
  readonly pollSeconds: number;
}

/**
 * Each name's origin, per origins map. peerOrigin validates the name twice with the peer-name
 * regexes, and usablePeers runs for every routed request over every peer: at 50 peers that was
 * ~10% of placement's CPU (bench/pool-scale, 2026-12-02). The answer depends only on the name and
 * the map, both fixed between renames, so it is kept; the bound only stops a churn of renames.
 */
const ORIGIN_CACHE_MAX = 4_096;
const originCache = new WeakMap<ReadonlyMap<string, string>, Map<string, string>>();

/** The kept origins for one origins map (read once a request, not once a peer). */
function originCacheOf(origins: ReadonlyMap<string, string>): Map<string, string> {
  let cache = originCache.get(origins);
  if (cache === undefined) originCache.set(origins, (cache = new Map()));
  return cache;
}

function originOf(name: string, origins: ReadonlyMap<string, string>, cache: Map<string, string>): string {
  let origin = cache.get(name);
  if (origin === undefined) {
    origin = peerOrigin(name, origins);
    if (cache.size >= ORIGIN_CACHE_MAX) cache.clear();
    cache.set(name, origin);
  }
  return origin;
}

export function usablePeers(input: UsablePeersInput): UsablePeer[] {
  const kept = originCacheOf(input.origins);
  const out: UsablePeer[] = [];
  for (const row of input.store.list()) {
    if (row.status !== 'connected' || !row.enabled) continue;
    const h = input.health(row.id);
    const caps = h.capabilities;
    if (caps === null || h.capabilitiesAtMs === null || !caps.acceptingWork) continue;
    const stale = !snapshotTrusted(h.capabilitiesAtMs, input.nowMs, input.pollSeconds);
    const forwarded = input.forwarded(row.nodeFqdn);
    out.push({
      peerId: row.id,
      name: row.nodeFqdn,
      origin: originOf(row.nodeFqdn, input.origins, kept),
      // What each engine there serves now: a model one engine withholds is no offer of that engine.
      backends: caps.servable,
      inventory: caps.backends,
      // A stale snapshot's load figures are discarded: both read as unmeasured (mid-load, mid-band).
      queueDepth: peerQueueDepth(forwarded, stale ? null : caps.inFlightRequests, h.forwardedAtSnapshot),
      hardwareTier: caps.hardwareTier,
      pressure: peerPressure(stale ? null : caps.gpuPressure, forwarded),
      snapshotStale: stale,
      loadReported: !stale && caps.inFlightRequests !== null,
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
