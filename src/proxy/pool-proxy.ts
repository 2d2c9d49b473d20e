/**
 * PoolProxy: the one call a proxy route makes. Reads the request's facts once, resolves
 * auto, builds candidates from the engine snapshot, places them, opens the routing-log row
 * and hands the walk the order. Everything before the walk is a pure decision over snapshots.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { HubEnv } from '../config/env.js';
import type { PoolSettings } from '../config/settings-schema.js';
import type { BackendHealth } from '../engines/health-snapshot.js';
import type { BackendView, ProxyDialect } from '../engines/types.js';
import { HubError } from '../errors.js';
import { localCandidates, peerCandidates, type LocalUnservable, type UsablePeer } from '../placement/candidates.js';
import { place } from '../placement/pipeline.js';
import { rankCandidates } from '../placement/rank.js';
import type { PlacementRecords } from '../routing-log/entry.js';
import type { RoutingLog } from '../routing-log/ring.js';
import { AUTO_MODEL, resolveAuto } from './auto-alias.js';
import { offersOf } from './pool-offers.js';
import { estimatedPromptTokens, headerBudgetMs } from './header-budget.js';
import type { InFlight } from './in-flight.js';
import { localBackendsReport } from './local-backends-report.js';
import { writeProxyError } from './proxy-errors.js';
import { forwardBody, readRequestFacts } from './request-facts.js';
import type { RoutedRoute } from './route-table.js';
import { walk, type WalkDeps, type WalkObserver } from './walk.js';
import { CallerLine } from './walk-caller.js';
import { unservedHeaders } from './walk-rows.js';
import { localUnservable, withheldFacts, withheldHere, withheldTest, type WithholdBook } from './withhold-book.js';
import { resolvePin } from '../placement/steps/pin.js';
import type { Candidate, NodeLimits, Placement, PlacementContext } from '../placement/types.js';
import { requestedWindow } from '../placement/window.js';
import type { Clock } from '../util/clock.js';
import type { ThroughputBook } from '../placement/throughput/book.js';
import type { EngineWork } from './engine-work.js';
import { placementInputs, type PlacementInputs, type PlacementInputsArgs } from './placement-inputs.js';
import { verdictWindow } from './verdict-window.js';
import { affinityHold, engineResidency, type HoldDecision } from './contention-hold.js';
import type { PrefixAffinity } from '../placement/affinity/prefix-affinity.js';
import { affinityHeldId, affinityOutcome } from '../placement/steps/affinity.js';
import { peerCanTake } from '../placement/steps/contention.js';
import type { IncomingTraceHeaders } from '../tracing/trace-context.js';
import type { Tracer } from '../tracing/tracer.js';

/** A request id minted by another Hub is accepted only in the shape this Hub mints. */
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface InboundForward {
  /** The peer that sent the work, as the guard authenticated it. */
  readonly fromPeer: string;
  /** The sender's X-Hub-Pool-Request-Id, so both rows share one id; null when absent. */
  readonly requestId: string | null;
  /** The sender's X-Hub-Pool-Stall-Ms as read (forward-stall.ts); null when absent or unreadable. */
  readonly senderStallMs: number | null;
}

/** What a route hands the proxy beside the body. */
export interface ServeOptions {
  /** The app's Accept header, passed on. */
  readonly accept?: string | undefined;
  /** Set when the request is a peer's forward. */
  readonly inbound?: InboundForward;
  /** X-Hub-Pool-Session, for prefix affinity. */
  readonly sessionHeader?: string | readonly string[] | undefined;
  /** traceparent and tracestate as they arrived. */
  readonly trace?: IncomingTraceHeaders;
}

/** What the proxy needs from the pool: the peers it may use, and how to reach and judge them. */
export interface PoolAccess {
  /** Peers placement may send work to now; empty when outbound is off or the request is a peer's forward. */
  usablePeers(): UsablePeer[];
  peerAuth: WalkDeps['peerAuth'];
  onPeerRefused: WalkDeps['onPeerRefused'];
  onEngineRefusal: WalkDeps['onEngineRefusal'];
}

export interface PoolProxyDeps {
  readonly pool: PoolAccess;
  readonly outputFaults: WithholdBook;
  readonly unservable: WithholdBook;
  readonly onWithholdChange: WalkDeps['onWithholdChange'];
  readonly env: HubEnv;
  readonly settings: () => PoolSettings;
  readonly health: BackendHealth;
  readonly inFlight: InFlight;
  readonly routingLog: RoutingLog;
  readonly dispatcher: Dispatcher;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Hooks into every walk's lifecycle (walk-types.ts); none by default. */
  readonly observers?: readonly WalkObserver[];
  /** Prefill readings per node, engine and model (throughput placement). */
  readonly throughputBook: ThroughputBook;
  /** What each local engine is generating (local engine contention); also one of the observers. */
  readonly engineWork: EngineWork;
  /** The window this node's Ollama runs a request that names none (its stated context cap); null when none is stated. */
  readonly defaultNumCtx: () => number | null;
  /** Prefix affinity's table and hooks; without it affinity never applies. */
  readonly affinity?: PrefixAffinity;
  /** This node's GPU-pressure band (machine/pressure-sampler.ts); null or absent when it has none. */
  readonly ownPressure?: () => number | null;
  /** Each request's trace: traceparent passed on, spans exported when OTLP export is configured. */
  readonly tracer: Tracer;
}

export class PoolProxy {
  readonly #deps: PoolProxyDeps;
  /** What every walk needs; built once, not per request. */
  readonly #walkDeps: WalkDeps;
  /** Which local engines withhold which models: what candidates and auto's offers both leave out. */
  readonly #unservable: LocalUnservable;

  constructor(deps: PoolProxyDeps) {
    this.#deps = deps;
    this.#unservable = localUnservable(deps.unservable);
    this.#walkDeps = {
      dispatcher: deps.dispatcher,
      rows: deps.routingLog,
      inFlight: deps.inFlight,
      logger: deps.logger,
      peerAuth: deps.pool.peerAuth,
      onPeerRefused: deps.pool.onPeerRefused,
      onEngineRefusal: deps.pool.onEngineRefusal,
      outputFaults: deps.outputFaults,
      unservable: deps.unservable,
      onWithholdChange: deps.onWithholdChange,
      observers: [...(deps.observers ?? []), ...(deps.affinity ? [deps.affinity.observer] : [])],
    };
  }

  /**
   * Serves one routed request (chat, completion, generate, embeddings) end to end. With
   * `inbound`, the request is a peer's forward: it is served from this node's own engines
   * only (a peer never relays), under the sender's request id, and logged as inbound.
   */
  async serveRouted(route: RoutedRoute, raw: Buffer, res: ServerResponse, opts: ServeOptions = {}): Promise<void> {
    const { accept, inbound, sessionHeader } = opts;
    const startedAt = performance.now();
    const trace = this.#deps.tracer.begin(opts.trace ?? {}, `POST ${route.path}`, () => ({
      'http.request.method': 'POST',
      'http.route': route.path,
      'hub_pool.direction': inbound ? 'inbound' : 'outbound',
      ...(inbound ? { 'hub_pool.from_peer': inbound.fromPeer } : {}),
    }));
    // Watched from here: a caller that leaves during the engine probe must not leave a count behind.
    const caller = new CallerLine(res);
    const facts = readRequestFacts(raw, route);
    if (facts.model === null) {
      throw new HubError('HUB_ERR_MODEL_REQUIRED', `the request names no model: add a "model" field (a model id, or "auto") to the ${route.path} body`);
    }
    const views = await this.#deps.health.read();
    // A peer's forward is served from this node's engines only: a peer never relays.
    const peers = inbound ? [] : this.#deps.pool.usablePeers();
    // The model auto stands for; null when no node offers one, and then the request has no
    // candidate, so the walk answers the 502 with a row and a request id like any other it cannot place.
    const auto = facts.model === AUTO_MODEL ? resolveAuto(offersOf(views, peers, route.dialect, this.#unservable)) : undefined;
    const model = auto ?? facts.model;
    const settings = this.#deps.settings();
    const candidates =
      auto === null
        ? []
        : [
            ...localCandidates(views, model, route.dialect, (id) => this.#deps.inFlight.count(id), this.#unservable, this.#deps.ownPressure?.() ?? null),
            ...peerCandidates(peers, model, route.dialect),
          ];
    const ranked = rankCandidates(candidates, { localAffinity: settings.poolLocalAffinity, pressureWeight: settings.poolPressureWeight });
    // Outbound ids are minted here and kept by the ring, so affinity can key its walk by this one.
    const proposedId = inbound?.requestId && REQUEST_ID.test(inbound.requestId) ? inbound.requestId : randomUUID();
    // A peer's forward is never re-routed, so affinity (like the pin) judges outbound requests only.
    const affinity =
      inbound || !this.#deps.affinity
        ? null
        : this.#deps.affinity.contextFor({ model, judgedRoute: route.completion, sessionHeader, body: facts.json }, settings);
    const body = forwardBody(raw, facts, model);
    const estimatedTokens = estimatedPromptTokens(body.length);
    const nowMs = this.#deps.clock.nowMs();
    const budgetMs = headerBudgetMs(body.length, this.#deps.env.firstByteTimeoutMs, this.#deps.env.minPrefillTokensPerSec);
    const withheld = withheldTest(this.#deps.outputFaults, model);
    // The engine affinity holds for this session, which contention may leave in front when its prefix is warm.
    const heldId = affinityHeldId([ranked], affinity);
    const affinityTarget = heldId === null ? null : (ranked.find((c) => c.id === heldId) ?? null);
    const held =
      inbound || !route.completion ? { held: null, refused: null } : await this.#holdForAffinity(affinityTarget, model, facts.numCtx, ranked, withheld);
    if (held.refused !== null)
      this.#deps.logger.debug({ model, check: held.refused }, 'contention does not hold the affinity engine: its prefix could not be shown warm');
    const { placed, runsAt } = this.#place(
      ranked,
      {
        route,
        model,
        candidates: ranked,
        peers,
        settings,
        env: this.#deps.env.knobs,
        // The pool's own unit, bytes / 4 of the forwarded body: the one the budget is sized in.
        estimatedTokens,
        budgetMs,
        numCtx: facts.numCtx,
        defaultNumCtx: this.#deps.defaultNumCtx(),
        book: this.#deps.throughputBook,
        engineSlots: engineSlotsOf(views),
        busy: this.#deps.engineWork.busy(),
        withheld,
        affinityHeld: held.held,
        nowMs,
      },
      {
        model,
        pins: inbound ? [] : settings.poolPins,
        route: { path: route.path, judgesPrompt: route.completion },
        estimatedTokens,
        window: requestedWindow(facts.numCtx, estimatedTokens),
        nowMs,
        // Only the entry node judges ceilings and caps: it alone knows whether there was anywhere else to send the work.
        limits: inbound ? new Map() : nodeLimits(this.#deps.env, settings, peers),
        withheld: withheldFacts(ranked, model, this.#deps.outputFaults),
        affinity,
      },
      // A peer's forward is never re-placed by the load rules: the sender judged it.
      !inbound,
    );
    // The affinity outcome is read off the order the walk takes, after every later step.
    const affinityRecord = placed.records.affinity === null ? null : affinityOutcome(placed.records.affinity, placed.order, affinity?.remembered ?? null);
    const r = placed.records;
    // Written out, not { ...placed.records, affinity }: see nullPlacementRecords (routing-log/entry.ts).
    const records: PlacementRecords = {
      pin: r.pin,
      promptCeiling: r.promptCeiling,
      contextCap: r.contextCap,
      slots: r.slots,
      throughput: r.throughput,
      contention: r.contention,
      affinity: affinityRecord,
      withheld: r.withheld,
    };
    const placement = { order: placed.order, records };
    // The ring decides the id: a sender's id that a held row already has is replaced by a fresh one.
    const { id: requestId } = this.#deps.routingLog.open({
      id: proposedId,
      direction: inbound ? 'inbound' : 'outbound',
      path: route.path,
      ...(inbound ? { node: inbound.fromPeer } : {}),
      model,
      candidates: placement.order.length,
      stream: facts.stream,
      bodyBytes: body.length,
      budgetMs,
      placement: placement.records,
      traceId: trace.traceId,
    });
    trace.setRequestId(requestId);

    if (route.completion && placement.order.length > 0) this.#deps.engineWork.expect(requestId, runsAt);
    if (affinity !== null) this.#deps.affinity?.follow(requestId, affinity);
    await walk(this.#walkDeps, {
      requestId,
      route,
      model,
      body,
      stream: facts.stream,
      order: placement.order,
      budgetMs,
      startedAt,
      accept,
      res,
      caller,
      rowNode: inbound?.fromPeer ?? null,
      senderStallMs: inbound?.senderStallMs ?? null,
      windowOf: verdictWindow({ model, dialect: route.dialect, numCtx: facts.numCtx, localCap: this.#deps.defaultNumCtx(), peers, local: views }),
      affinity: affinityRecord?.outcome ?? null,
      trace,
      answerNoCandidate: () => {
        const headers = unservedHeaders({ requestId, affinity: affinityRecord?.outcome ?? null });
        const extra = { localBackends: localBackendsReport(views) };
        if (auto === null) return writeProxyError(res, route.dialect, 502, 'HUB_ERR_NO_AUTO_MODEL', NO_AUTO_MODEL_MESSAGE, extra, headers);
        // A pin never makes inference fail; when one applies, the 502 says so in the same breath.
        const pin = inbound ? null : resolvePin(settings.poolPins, model);
        const pinNote = pin === null ? '' : ` A ${pin.scope} pin to ${pin.target} applies to this model; pins only reorder candidates and did not cause this.`;
        const withheld = withheldHere(views, model, route.dialect, this.#deps.unservable);
        const withheldNote = withheld.map((w) => ` ${w.backend} here holds it but withholds it until ${w.until} after failing with it (${w.reason}).`).join('');
        writeProxyError(
          res,
          route.dialect,
          502,
          'HUB_ERR_NO_CANDIDATE',
          `No pool node currently has model "${model}" available.${withheldNote}${pinNote}`,
          withheld.length > 0 ? { ...extra, withheld } : extra,
          headers,
        );
      },
    });
  }

  /**
   * The load rules' inputs, then the placement steps. A method of its own so that the inputs die
   * with its frame: serveRouted stays suspended for as long as the answer streams, and an async
   * function's suspended frame keeps its locals. The inputs hold a copy of every generation
   * running on this node's engines, so each open stream kept one: 1,000 open streams held about
   * 500,000 such entries, 27 MB of heap (bench/README.md, 2026-12-02 08:45).
   */
  #place(
    ranked: readonly Candidate[],
    inputArgs: PlacementInputsArgs,
    ctx: PlacementContext,
    loadRules: boolean,
  ): { placed: Placement; runsAt: PlacementInputs['runsAt'] } {
    const inputs = placementInputs(inputArgs);
    if (!loadRules) return { placed: place(ranked, ctx), runsAt: inputs.runsAt };
    // Written out, not { ...ctx, ...inputs }: a literal that starts with a spread gets a hidden
    // class of its own on Node 20, and every placement step reads this context.
    const withInputs: PlacementContext = {
      model: ctx.model,
      pins: ctx.pins,
      route: ctx.route,
      estimatedTokens: ctx.estimatedTokens,
      window: ctx.window,
      nowMs: ctx.nowMs,
      limits: ctx.limits,
      withheld: ctx.withheld,
      affinity: ctx.affinity,
      slots: inputs.slots,
      throughput: inputs.throughput,
      contention: inputs.contention,
    };
    return { placed: place(ranked, withInputs), runsAt: inputs.runsAt };
  }

  /** Whether contention may leave the affinity engine where it is (contention-hold.ts); asks the engine only when it is contended. */
  #holdForAffinity(
    target: Candidate | null,
    model: string,
    numCtx: number | null,
    ranked: readonly Candidate[],
    withheld: (c: Candidate) => boolean,
  ): Promise<HoldDecision> {
    if (target === null) return Promise.resolve({ held: null, refused: null });
    const contentionCanMove = this.#deps.env.knobs.contentionPlacement() && peerCanTake([ranked], withheld);
    const runsAt = target.engine === 'ollama' ? (numCtx ?? this.#deps.defaultNumCtx()) : null;
    return affinityHold({
      target,
      model,
      runsAt,
      busy: target.backendId === null ? [] : (this.#deps.engineWork.busy().get(target.backendId) ?? []),
      read: engineResidency(this.#deps.dispatcher),
      contentionCanMove,
    });
  }

  /**
   * The peers /api/show asks, when no local engine holds the model, in the order placement would
   * try them for the model (issue 10 audit: it went in pairing order, so a busy first-paired peer
   * was asked before an idle one). The lookup has no prompt, so the ceiling and the cap leave it
   * alone, and it opens no routing-log row.
   */
  showOrder(model: string, peers: readonly UsablePeer[]): UsablePeer[] {
    const settings = this.#deps.settings();
    // Withholding is a rule of routing only: a peer whose engine keeps failing a model still holds
    // it on disk and describes it (spec, "When a node lists a model it cannot actually serve"), as
    // this Hub's own withheld Ollama does.
    const holders = peers.map((p) => ({ ...p, backends: p.inventory ?? p.backends, unservableModels: [] }));
    const ranked = rankCandidates(peerCandidates(holders, model, 'ollama'), {
      localAffinity: settings.poolLocalAffinity,
      pressureWeight: settings.poolPressureWeight,
    });
    const placed = place(ranked, {
      model,
      pins: settings.poolPins,
      route: { path: '/api/show', judgesPrompt: false },
      estimatedTokens: 0,
      window: requestedWindow(null, 0),
      nowMs: this.#deps.clock.nowMs(),
      limits: nodeLimits(this.#deps.env, settings, peers),
      withheld: withheldFacts(ranked, model, this.#deps.outputFaults),
    });
    // One map, not a peers.find per candidate: quadratic in the pool size otherwise.
    const byId = new Map(peers.map((p) => [p.peerId, p]));
    return placed.order.flatMap((c) => (c.peerId === null ? [] : (byId.get(c.peerId) ?? [])));
  }

  /** For /api/show (which opens no routing-log row): the model auto stands for, or null after answering the 502 itself. */
  resolveAutoModel(
    views: readonly BackendView[],
    dialect: ProxyDialect,
    res: ServerResponse,
    peers: readonly UsablePeer[] = this.#deps.pool.usablePeers(),
  ): string | null {
    const model = resolveAuto(offersOf(views, peers, dialect, this.#unservable));
    if (model === null) writeProxyError(res, dialect, 502, 'HUB_ERR_NO_AUTO_MODEL', NO_AUTO_MODEL_MESSAGE, { localBackends: localBackendsReport(views) });
    return model;
  }
}

const NO_AUTO_MODEL_MESSAGE =
  'No chat model on this Hub or its connected peers can stand in for "auto". Load a chat model on a pool node, or ask for one by name.';

/** What each node states about the work it takes: this node's ceiling (env over setting) and cap, and each usable peer's advertised ones. */
export function nodeLimits(env: Pick<HubEnv, 'maxPromptTokens'>, settings: PoolSettings, peers: readonly UsablePeer[]): Map<string, NodeLimits> {
  const limits = new Map<string, NodeLimits>([
    ['local', { maxPromptTokens: env.maxPromptTokens ?? settings.poolMaxPromptTokens, maxNumCtx: settings.inferenceMaxNumCtx }],
  ]);
  for (const p of peers) limits.set(p.name, { maxPromptTokens: p.maxPromptTokens, maxNumCtx: p.maxNumCtx });
  return limits;
}

/** The slot count each local engine reported itself (llama.cpp's /slots), by backend id. */
function engineSlotsOf(views: readonly BackendView[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of views) if (v.engineQueue?.slots != null) out.set(v.backendId, v.engineQueue.slots);
  return out;
}
