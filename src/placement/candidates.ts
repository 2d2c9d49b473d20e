/**
 * Candidates: the engines that hold the requested model, are healthy by the snapshot, and
 * speak the request's dialect, on this node and on every usable peer. Exclusion happens here
 * and nowhere else; every later step only reorders.
 */
import type { BackendView, ProxyDialect } from '../engines/types.js';
import { ADAPTERS } from '../engines/adapters.js';
import type { EngineKind } from '../engines/engine-kind.js';
import { backendHolds, isSameModelEitherWay } from '../engines/model-name.js';
import { kindBits, kindsHolding, type KindBits } from '../engines/model-holdings.js';
import { UNKNOWN_PRESSURE } from './peer-load.js';
import { localQueueDepth } from './local-queue-depth.js';
import type { Candidate } from './types.js';
import type { ModelDetail } from '../peers/capabilities.js';
import type { ThroughputAdvert } from '../peers/throughput-advert.js';

/**
 * Whether this node's engine withholds the model as unservable now (proxy/withhold-book.ts,
 * localUnservable, reads it off the book). One rule for every place that says what this node
 * can serve: candidates, what auto chooses from, the model listings, and what peers are told.
 */
export type LocalUnservable = (backend: { readonly backendId: string; readonly kind: EngineKind }, model: string) => boolean;

/** Nothing withheld: for callers that ask which engines hold a model, not which would be tried. */
export const NOTHING_UNSERVABLE: LocalUnservable = () => false;

export function localCandidates(
  backends: readonly BackendView[],
  model: string,
  dialect: ProxyDialect,
  /** Requests the proxy has in flight on an engine; other clients' work the engine reported is added (local-queue-depth.ts). */
  inFlight: (backendId: string) => number,
  /** Whether an engine has been unable to serve the model lately: then it is no candidate for it (until the withhold ends). */
  unservable: LocalUnservable = NOTHING_UNSERVABLE,
  /** This node's own GPU-pressure band (machine/pressure-sampler.ts); null when it has none. */
  ownPressure: number | null = null,
): Candidate[] {
  return backends
    .filter((b) => b.healthy && ADAPTERS[b.kind].speaks(dialect) && backendHolds(b, model) && !unservable(b, model))
    .map((b) => ({
      id: `local/${b.backendId}`,
      node: 'local',
      backendId: b.backendId,
      engine: b.kind,
      url: b.url,
      queueDepth: localQueueDepth(inFlight(b.backendId), b.engineQueue),
      loadReported: true,
      peerId: null,
      hardwareTier: null,
      // Without a band of its own this node reads mid-band, like any node that cannot measure.
      pressure: ownPressure ?? UNKNOWN_PRESSURE,
    }));
}

/** A peer placement may send work to: connected, enabled, taking work, with a snapshot (a stale one ranks mid-load). */
export interface UsablePeer {
  readonly peerId: string;
  readonly name: string;
  readonly origin: string;
  readonly backends: readonly { readonly kind: string; readonly models: readonly string[] }[];
  /**
   * What each engine there holds on disk, withheld models included: what the /api/show lookup
   * reads, since describing a model needs no engine able to run it. Absent reads as `backends`.
   */
  readonly inventory?: readonly { readonly kind: string; readonly models: readonly string[] }[];
  readonly queueDepth: number;
  readonly hardwareTier: string | null;
  readonly pressure: number;
  /** Models the peer says it cannot serve now; never candidates there. */
  readonly unservableModels: readonly string[];
  /** What the peer's engines say about its models (for the auto alias); empty when it did not say. */
  readonly modelDetails: ReadonlyMap<string, ModelDetail>;
  /** The peer's advertised prompt ceiling; null when it advertises none (or predates the key). */
  readonly maxPromptTokens: number | null;
  /** The peer's advertised context cap; null when it advertises none (or predates the key): it takes any window. */
  readonly maxNumCtx: number | null;
  /** The slots the peer stated for its Ollama (ollamaSlots); null when not stated. */
  readonly ollamaSlots?: number | null;
  /** The peer's advertised throughput bands; null when it advertised none. */
  readonly throughput?: ThroughputAdvert | null;
  /** When the snapshot these figures come from was taken, epoch ms (advertised ages count from here). */
  readonly snapshotAtMs?: number;
  /**
   * True when that snapshot is older than three health polls: its load figures were discarded and
   * queueDepth/pressure are the unmeasured (mid-load) ones. Absent reads as false (a fresh snapshot).
   */
  readonly snapshotStale?: boolean;
  /**
   * False when queueDepth holds the mid-load stand-in: the snapshot is stale, or the peer's last
   * good poll carried no in-flight count. Absent reads as true.
   */
  readonly loadReported?: boolean;
}

/** The engine kinds that speak each dialect, as bits for kindsHolding. */
export const DIALECT_SPEAKERS: Readonly<Record<ProxyDialect, KindBits>> = {
  openai: kindBits((kind) => ADAPTERS[kind].speaks('openai')),
  ollama: kindBits((kind) => ADAPTERS[kind].speaks('ollama')),
};

/** Peer names whose candidate id is kept; past this many (a churn of renames) the kept ids are dropped. */
const POOL_ID_CACHE_MAX = 4_096;
const poolIds = new Map<string, string>();

/**
 * A peer's candidate id, the same string from one request to the next. The id keys several maps
 * per request (stated slots, predictions, withheld), and one built afresh per request was hashed
 * afresh by the first of them: kept, placement at 50 peers 0.91x long, 0.95x short (bench/micro/placement.ts).
 */
function poolIdOf(name: string): string {
  let id = poolIds.get(name);
  if (id === undefined) {
    id = `${name}/pool`;
    if (poolIds.size >= POOL_ID_CACHE_MAX) poolIds.clear();
    poolIds.set(name, id);
  }
  return id;
}

/**
 * Whether a peer's unservableModels names the requested model, read as Ollama reads names (a
 * tagless name is its `:latest`), either way round: a peer lists the names its engines list
 * (`qwen3:latest`) and may be asked for `qwen3`, and a peer on an older build may name a model
 * as a request named it. The list carries no engine kind; a non-Ollama engine listing both
 * `m` and `m:latest` as different models is the only case this reads too widely. A loop, not
 * some(): this runs for every peer on every request, and builds nothing.
 */
export function namesModel(names: readonly string[], model: string): boolean {
  for (const name of names) if (isSameModelEitherWay('ollama', name, model)) return true;
  return false;
}

/** One candidate per peer that holds the model in an engine speaking the dialect (the peer picks its own engine). */
export function peerCandidates(peers: readonly UsablePeer[], model: string, dialect: ProxyDialect): Candidate[] {
  const speakers = DIALECT_SPEAKERS[dialect];
  return peers
    .filter((p) => !namesModel(p.unservableModels, model) && (kindsHolding(p.backends, model) & speakers) !== 0)
    .map((p) => ({
      id: poolIdOf(p.name),
      node: p.name,
      backendId: null,
      engine: null,
      url: p.origin,
      queueDepth: p.queueDepth,
      loadReported: p.loadReported !== false,
      peerId: p.peerId,
      hardwareTier: p.hardwareTier,
      pressure: p.pressure,
    }));
}
