/**
 * GET /api/inference/pool/status, built from in-memory state only: the resolved switches,
 * the settings, this node's cached engine inventory and in-flight counts. It never probes
 * anything live, so it is cheap enough to poll.
 */
import type { DisabledBy, PoolDirections } from '../config/kill-switch.js';
import type { PoolSettings, RoutingPin } from '../config/settings-schema.js';
import type { ContainerReport } from '../containers/container-sampler.js';
import type { BackendView } from '../engines/types.js';
import type { EngineQueueView } from '../engines/engine-queue.js';
import { localQueueDepth, othersOnEngine } from '../placement/local-queue-depth.js';
import type { PeerView } from '../peers/peer-view.js';
import type { PairingPinStatus } from '../pairing/pairing-pin.js';
import { localCandidates, namesModel, NOTHING_UNSERVABLE, peerCandidates, type LocalUnservable, type UsablePeer } from '../placement/candidates.js';
import { unservableKey, type WithheldEntry } from '../proxy/withhold-book.js';
import { LOCAL_PIN_TARGET, pinTargetNode } from '../placement/steps/pin.js';
import type { ThroughputBook } from '../placement/throughput/book.js';
import { localPlacementStatus, peerPlacementStatus, type LocalPlacementStatus, type PeerPlacementStatus, type PeerSnapshotFacts } from './placement-status.js';
import { peerMachineStatus, type LocalMachineStatus, type PeerMachineFacts, type PeerMachineStatus } from './machine-status.js';
import { contextCapFindings, type ContextCapFindings } from './context-caps.js';
import type { IdentityFailureCause } from '../identity/identity-failure-cause.js';
import { identityFix } from '../identity/identity-fix.js';
import type { IdentitySummary } from '../identity/node-identity.js';

export type StatusReason = 'active' | 'no_peers' | 'partially_disabled' | 'disabled_by_env' | 'disabled_by_setting';

export interface BackendStatus {
  readonly id: string;
  readonly kind: string;
  readonly url: string;
  readonly running: boolean;
  readonly healthy: boolean;
  readonly error: string | null;
  /** Age of the answer shown, ms; null before the first probe answered. */
  readonly probedMsAgo: number | null;
  /** Requests this Hub's proxy has in flight on the engine. */
  readonly inFlight: number;
  /** The queue depth placement reads for it: inFlight plus other clients' work the engine reported (placement/local-queue-depth.ts). */
  readonly queueDepth: number;
  /** What the engine last said about itself; null when it said nothing (or its report is too old to read). */
  readonly engineReported: EngineReportedStatus | null;
  readonly models: readonly string[];
}

/** An engine's own report, as status shows it. Each figure is null when the engine did not say it. */
export interface EngineReportedStatus {
  /** Requests it is running (vLLM num_requests_running, llama.cpp busy slots). */
  readonly running: number | null;
  /** Requests waiting in it (vLLM num_requests_waiting). */
  readonly waiting: number | null;
  /** Requests it runs at once (llama.cpp's /slots length); placement reads it when the operator stated no slots. */
  readonly slots: number | null;
  /** Of running + waiting, what this Hub did not send it: other clients' work; null when it reported no queue. */
  readonly beyondThisHub: number | null;
  /** Age of the report, ms. */
  readonly reportedMsAgo: number;
}

/** A peer as status reports it, before what placement and machine status add. */
export type PeerStatusRow = PeerView & {
  readonly forwardedInFlight: number;
  readonly queueDepth: number | null;
  /** Whether the peer's last snapshot is older than three polls; null when it is no candidate (queueDepth null). */
  readonly snapshotStale: boolean | null;
  /**
   * Whether queueDepth rests on a load the peer reported: false when it is the mid-load stand-in
   * (a stale snapshot, or a poll that carried no in-flight count); null when it is no candidate.
   */
  readonly loadReported: boolean | null;
};

export interface PoolStatus {
  readonly enabled: boolean;
  readonly disabledBy: DisabledBy;
  readonly reason: StatusReason;
  readonly directions: { readonly outbound: PoolDirections['outbound']; readonly inbound: PoolDirections['inbound'] };
  /** Outbound on and at least one connected, enabled peer. */
  readonly routingActive: boolean;
  readonly settings: PoolSettings;
  readonly tailscaleAdminApiConfigured: boolean;
  readonly pairingPin: PairingPinStatus;
  readonly localNode: {
    /** This Hub's MagicDNS name; null while it has none. */
    readonly nodeFqdn: string | null;
    /** The tailnet's MagicDNS suffix; null off any tailnet (pairing requests are then not suffix-checked). */
    readonly tailnetSuffix: string | null;
    readonly tailscaleConnected: boolean;
    /**
     * The tailnet the local Tailscale daemon says this machine is on (its CurrentTailnet.Name,
     * e.g. alice@example.com): the tailnet discovery asks the Admin API about. Null when the
     * daemon names none: it is not running or not connected, or too old to say. The Admin API
     * is then asked about its OAuth client's own tailnet while this Hub knows a tailnet suffix
     * (the HUB_NODE_FQDN / HUB_TAILNET_SUFFIX stand-ins), and not at all otherwise.
     */
    readonly tailnet: string | null;
    /** Where the name came from: Tailscale, the HUB_NODE_FQDN stand-in, or nowhere. */
    readonly tailnetSource: 'env' | 'tailscale' | 'none';
    /**
     * This Hub's pool identity; null until first use. When the first mint failed (the secret cannot
     * be read or created, the disk refused) nodeUuid and fingerprint are null and identityError says
     * why. While it cannot be used, identityCause names the cause and identityFix what to do about
     * it: the same sentence a refusing route, doctor and the dashboard give.
     */
    readonly identity: {
      readonly nodeUuid: string | null;
      readonly fingerprint: string | null;
      readonly identityError: string | null;
      readonly identityCause: IdentityFailureCause | null;
      readonly identityFix: string | null;
    } | null;
    /** HUB_POOL_PEER_ORIGINS in force: peers (by name, or by LAN address for probing and pairing) are dialled at these origins instead of their own. */
    readonly peerOriginsMap: { readonly active: boolean; readonly entries: readonly { readonly name: string; readonly origin: string }[] };
    /** This node's queue depth over its own engines: the proxy's in-flight requests plus other clients' work the engines reported. */
    readonly queueDepth: number;
    /** The prompt ceiling in force (env override applied); null = no ceiling. */
    readonly maxPromptTokens: number | null;
    readonly maxPromptTokensSetBy: 'env' | 'setting' | null;
    /** This node's context cap (inferenceMaxNumCtx), advertised as maxNumCtx; null = no cap. */
    readonly maxNumCtx: number | null;
    readonly backends: readonly BackendStatus[];
    /** This Hub's own container counts (spec, "Container counts"); null when the Hub was built without a sampler. */
    readonly containers: ContainerReport | null;
  } & Partial<LocalPlacementStatus> &
    Partial<LocalMachineStatus>;
  /**
   * Each peer, with the queue depth the ranker reads (null when it is not usable now), this Hub's
   * forwards in flight, and snapshotStale: true when its last snapshot is older than three health
   * polls, so queueDepth is the mid-load figure rather than what it last reported.
   */
  readonly peers: readonly (PeerStatusRow & Partial<PeerPlacementStatus> & Partial<PeerMachineStatus>)[];
  /** Every operator pin, with whether its target could be preferred right now. */
  readonly pins: readonly PinStatus[];
  /** Every model the pool can serve now, with the nodes that hold it. */
  readonly models: readonly PoolModel[];
  /** Engines withheld now: for bad output (node|engine|model), and models a local engine could not serve. */
  readonly withheld: { readonly outputFaults: readonly WithheldEntry[]; readonly unservable: readonly WithheldEntry[] };
  /** What this Hub's and its connected peers' context caps say together: the caps, and who names none among them (context-caps.ts). */
  readonly contextCaps: ContextCapFindings;
  /** What the Hub set aside as it started (a variable it could not use, settings.json keys it ignored), as its log said it. */
  readonly startupWarnings: readonly string[];
}

/**
 * One routing pin as status reports it. A pin never errors when its target goes away; it
 * just stops matching, so targetAvailable is where an operator sees that it is idle.
 */
export interface PinStatus {
  readonly scope: RoutingPin['scope'];
  readonly model: string | null;
  /** The target as the pin stores it. */
  readonly target: string;
  /** 'local', or the peer name the target normalises to (the form routing compares). */
  readonly targetNode: string;
  /**
   * Whether routing could use the target now, judged with placement's own candidate predicates.
   * A model pin: the target has a candidate for that model (a local engine that is healthy, serves
   * it and has not been caught unable to; or a usable peer that lists it). The default pin: for
   * 'local', some local engine is healthy; for a peer, it is among the peers placement may send
   * work to (connected, enabled, taking work, polled at least once, outbound on).
   */
  readonly targetAvailable: boolean;
}

export interface StatusInputs {
  /** The warnings the Hub logged while starting; absent reads as none. */
  readonly startupWarnings?: readonly string[];
  /** Slot statements and throughput (placement-status.ts); absent leaves those fields out. */
  readonly placement?: { readonly book: ThroughputBook; readonly peerFacts: (peerId: string) => PeerSnapshotFacts | null; readonly nowMs: number };
  /** GPU pressure and hardware tier (machine-status.ts); absent leaves those fields out. */
  readonly machine?: { readonly local: LocalMachineStatus; readonly peerFacts: (peerId: string) => PeerMachineFacts | null; readonly nowMs: number };
  readonly directions: PoolDirections;
  readonly settings: PoolSettings;
  readonly envMaxPromptTokens: number | null;
  readonly backends: readonly BackendView[];
  readonly inFlight: (backendId: string) => number;
  readonly peers: readonly PeerView[];
  readonly tailnet: {
    readonly nodeFqdn: string | null;
    readonly tailnetSuffix: string | null;
    readonly tailscaleConnected: boolean;
    readonly source: 'env' | 'tailscale' | 'none';
    /** The daemon's CurrentTailnet.Name, whatever names this Hub; null when it reports none. */
    readonly tailnetName: string | null;
  };
  readonly identity: IdentitySummary | null;
  readonly pairingPin: PoolStatus['pairingPin'];
  readonly peerOrigins: ReadonlyMap<string, string>;
  readonly tailscaleAdminApiConfigured: boolean;
  /**
   * Usable peers as placement reads them (the proxy's usablePeers(), queue depth included);
   * absent means none, so a pin at a peer reports unavailable rather than guessed.
   */
  readonly usablePeers?: readonly UsablePeer[];
  /** Requests this Hub has forwarded to a peer and not finished reading. */
  readonly forwarded?: (peerName: string) => number;
  /** Engines withheld now: for bad output (node|engine|model) and models a local engine could not serve. */
  readonly withheld?: { readonly outputFaults: readonly WithheldEntry[]; readonly unservable: readonly WithheldEntry[] };
  /** This Hub's container sampler report; absent reads as null. */
  readonly containers?: ContainerReport;
}

/** One model the pool can serve and the nodes that hold it. */
export interface PoolModel {
  readonly model: string;
  /** 'local' and peers' names, local first. */
  readonly nodes: readonly string[];
  /** Held by one node only: the kind of model that shows the pool working, and the kind a node outage takes away. */
  readonly singleNode: boolean;
}

/**
 * What the pool can serve now: this node's healthy engines, less what an engine withholds as
 * unable to serve (as the listings and placement leave it out), plus every usable peer's cached
 * models.
 */
export function poolModels(backends: readonly BackendView[], peers: readonly UsablePeer[], unservable: LocalUnservable = NOTHING_UNSERVABLE): PoolModel[] {
  // Each model's nodes, this node first and then the peers by name. The peers are visited in that
  // order, so every list comes out sorted with no sort of its own: a sort per model was a tenth of
  // /status at 50 peers listing 50 models each (bench/pool-scale --peer-models, 2026-12-05).
  const nodes = new Map<string, string[]>();
  const add = (model: string, node: string) => {
    const list = nodes.get(model);
    if (list === undefined) nodes.set(model, [node]);
    // A node's models are all added before the next node's, so a repeat is always the last entry.
    else if (list[list.length - 1] !== node) list.push(node);
  };
  for (const b of backends) if (b.healthy) for (const m of b.models) if (!unservable(b, m.name)) add(m.name, 'local');
  const byName = [...peers].sort((a, b) => a.name.localeCompare(b.name));
  // A model a peer lists but says it cannot serve is not one the pool can serve there: read as
  // placement reads it (a tagless name covers its :latest), so the listings agree.
  for (const p of byName) for (const b of p.backends) for (const m of b.models) if (!namesModel(p.unservableModels, m)) add(m, p.name);
  return [...nodes.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([model, list]) => ({ model, nodes: list, singleNode: list.length === 1 }));
}

/** Peers work can be sent to: paired, connected and enabled here. */
export function connectedPeerCount(peers: readonly PeerView[]): number {
  return peers.filter((p) => p.status === 'connected' && p.enabled).length;
}

export function statusReason(directions: PoolDirections, connectedPeers: number): StatusReason {
  if (!directions.enabled) return directions.disabledBy === 'env' ? 'disabled_by_env' : 'disabled_by_setting';
  if (!directions.outbound.enabled || !directions.inbound.enabled) return 'partially_disabled';
  return connectedPeers === 0 ? 'no_peers' : 'active';
}

export function buildPoolStatus(input: StatusInputs): PoolStatus {
  const withheldKeys = new Set((input.withheld?.unservable ?? []).map((e) => e.key));
  const backends = input.backends.map((b) => ({
    id: b.backendId,
    kind: b.kind,
    url: b.url,
    running: b.running,
    healthy: b.healthy,
    error: b.error,
    probedMsAgo: b.probedMsAgo,
    inFlight: input.inFlight(b.backendId),
    queueDepth: localQueueDepth(input.inFlight(b.backendId), b.engineQueue),
    engineReported: engineReported(b.engineQueue),
    models: b.models.map((m) => m.name),
  }));
  const ceiling = input.envMaxPromptTokens ?? input.settings.poolMaxPromptTokens;
  const connected = connectedPeerCount(input.peers);
  const usableById = new Map((input.usablePeers ?? []).map((u) => [u.peerId, u] as const));
  return {
    enabled: input.directions.enabled,
    disabledBy: input.directions.disabledBy,
    reason: statusReason(input.directions, connected),
    directions: { outbound: input.directions.outbound, inbound: input.directions.inbound },
    routingActive: input.directions.outbound.enabled && connected > 0,
    settings: input.settings,
    tailscaleAdminApiConfigured: input.tailscaleAdminApiConfigured,
    pairingPin: input.pairingPin,
    localNode: {
      nodeFqdn: input.tailnet.nodeFqdn,
      tailnetSuffix: input.tailnet.tailnetSuffix,
      tailscaleConnected: input.tailnet.tailscaleConnected,
      tailnet: input.tailnet.tailnetName,
      tailnetSource: input.tailnet.source,
      identity:
        input.identity === null
          ? null
          : { ...input.identity, identityFix: input.identity.identityCause === null ? null : identityFix(input.identity.identityCause) },
      peerOriginsMap: { active: input.peerOrigins.size > 0, entries: [...input.peerOrigins].map(([name, origin]) => ({ name, origin })) },
      queueDepth: backends.reduce((sum, b) => sum + b.queueDepth, 0),
      maxPromptTokens: ceiling,
      maxPromptTokensSetBy: input.envMaxPromptTokens !== null ? 'env' : input.settings.poolMaxPromptTokens !== null ? 'setting' : null,
      maxNumCtx: input.settings.inferenceMaxNumCtx,
      backends,
      containers: input.containers ?? null,
      ...(input.placement ? localPlacementStatus(input.settings, input.placement.book) : {}),
      ...(input.machine ? input.machine.local : {}),
    },
    peers: input.peers.map((p) => {
      const usable = usableById.get(p.id);
      const placement = input.placement ? peerPlacementStatus(p.nodeFqdn, input.placement.peerFacts(p.id), input.placement.book, input.placement.nowMs) : {};
      const machine = input.machine
        ? peerMachineStatus(input.machine.peerFacts(p.id), usable?.pressure ?? null, input.machine.nowMs, input.settings.poolHealthPollSeconds)
        : {};
      return Object.assign(peerRow(p, input.forwarded?.(p.nodeFqdn) ?? 0, usable), placement, machine);
    }),
    pins: pinStatuses(input.settings.poolPins, { backends: input.backends, usablePeers: input.usablePeers ?? [], unservable: withheldKeys }),
    models: poolModels(input.backends, input.usablePeers ?? [], withheldIn(withheldKeys)),
    withheld: input.withheld ?? { outputFaults: [], unservable: [] },
    contextCaps: contextCapFindings(input.settings.inferenceMaxNumCtx, input.peers),
    startupWarnings: input.startupWarnings ?? [],
  };
}

/**
 * A peer's view with this Hub's live figures for it, written out field by field. Any literal
 * that spreads the view and then adds a field (or a spread copy the fields are then assigned to)
 * takes V8's slow path for every row: 10-27 µs a row against 0.1 written out (scratch, 2026-12-05),
 * about a tenth of /status at 50 peers. Written in the view's own order, so the JSON keeps it.
 */
function peerRow(p: PeerView, forwardedInFlight: number, usable: UsablePeer | undefined): PeerStatusRow {
  return {
    id: p.id,
    nodeFqdn: p.nodeFqdn,
    direction: p.direction,
    status: p.status,
    enabled: p.enabled,
    authMode: p.authMode,
    fingerprint: p.fingerprint,
    pinVerified: p.pinVerified,
    createdAt: p.createdAt,
    expiresAt: p.expiresAt,
    lastSeenAt: p.lastSeenAt,
    consecutiveFailures: p.consecutiveFailures,
    pairingProblem: p.pairingProblem,
    probeFailure: p.probeFailure,
    leftAt: p.leftAt,
    acceptingWork: p.acceptingWork,
    inFlightRequests: p.inFlightRequests,
    hardwareTier: p.hardwareTier,
    backends: p.backends,
    containers: p.containers,
    maxPromptTokens: p.maxPromptTokens,
    maxNumCtx: p.maxNumCtx,
    unservableModels: p.unservableModels,
    figuresCurrent: p.figuresCurrent,
    forwardedInFlight,
    queueDepth: usable?.queueDepth ?? null,
    snapshotStale: usable === undefined ? null : (usable.snapshotStale ?? false),
    loadReported: usable === undefined ? null : (usable.loadReported ?? usable.snapshotStale !== true),
  };
}

/** What a pin's target is judged against: the facts placement builds its candidates from. */
export interface PinTargetFacts {
  readonly backends: readonly BackendView[];
  readonly usablePeers: readonly UsablePeer[];
  /** unservableKey(backendId, kind, model) of each local engine withheld as unable to serve a model. */
  readonly unservable: ReadonlySet<string>;
}

/**
 * Each pin with its target resolved the way the pin step resolves it, and whether the pin would
 * apply now: the target has a candidate, by the predicates candidates() uses (spec, "Manual
 * routing pins": status is where a pin that quietly stopped applying shows). A model pin needs a
 * candidate for its model there: a healthy engine listing it and not withheld as unable to serve
 * it, or a usable peer listing it and not saying it cannot serve it. The default pin covers
 * every model, so any healthy engine, or the peer being usable, is enough. The OpenAI dialect is
 * the one asked: every engine kind speaks it (the adapters' shared test holds them to it), so a
 * target with a native candidate has an OpenAI one too.
 */
export function pinStatuses(pins: readonly RoutingPin[], facts: PinTargetFacts): PinStatus[] {
  return pins.map((pin) => {
    const targetNode = pinTargetNode(pin.target);
    return {
      scope: pin.scope,
      model: pin.scope === 'model' ? pin.model : null,
      target: pin.target,
      targetNode,
      targetAvailable: pinApplies(targetNode, pin.scope === 'model' ? pin.model : null, facts),
    };
  });
}

/** The withhold book's answer, read from the unservable keys status was given. */
function withheldIn(keys: ReadonlySet<string>): LocalUnservable {
  return (b, name) => keys.has(unservableKey(b.backendId, b.kind, name));
}

function pinApplies(targetNode: string, model: string | null, facts: PinTargetFacts): boolean {
  if (targetNode === LOCAL_PIN_TARGET) {
    if (model === null) return facts.backends.some((b) => b.healthy);
    return localCandidates(facts.backends, model, 'openai', () => 0, withheldIn(facts.unservable)).length > 0;
  }
  const peers = facts.usablePeers.filter((p) => p.name.toLowerCase() === targetNode);
  if (model === null) return peers.length > 0;
  return peerCandidates(peers, model, 'openai').length > 0;
}

function engineReported(q: EngineQueueView | null | undefined): EngineReportedStatus | null {
  if (q == null) return null;
  return { running: q.running, waiting: q.waiting, slots: q.slots, beyondThisHub: othersOnEngine(q), reportedMsAgo: q.reportedMsAgo };
}
