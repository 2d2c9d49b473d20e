/**
 * Hub Pool's placement, run from the project's own code: candidates (peerCandidates), the ranker
 * (rankCandidates), the peer load figure (peerQueueDepth), the per-request inputs
 * (placementInputs, which reads the throughput book and the peers' adverts), prefix affinity
 * (PrefixAffinity, its table and its walk observer), the withhold book, and the pipeline itself
 * (place, with STEPS or with none). Every one of them reads the simulated clock.
 *
 * What is composed here rather than imported is the glue PoolProxy.serveRouted does around those
 * calls (about twenty lines: the order of the calls and the arguments), because serveRouted also
 * reads HTTP and a live engine probe. It is mirrored call for call; no rule is restated.
 *
 * Each entry node runs its own Hub: its own forwards (counted live), its own throughput book,
 * affinity table and withhold book, and a snapshot of every node from its last health poll
 * (poolHealthPollSeconds). Each serving node runs the Hub half that sees inbound work: it times
 * its own prefills into its own book (advertised in its capabilities) and marks the model
 * unservable after two 500s in five minutes (advertised as unservableModels). Each node publishes
 * the hardwareTier the Hub's rule gives its hardware facts (hardware.ts).
 * Every engine is reached as a peer, the entry node's own included: the local head start and
 * local engine contention are not exercised (see README, "What the simulation leaves out").
 */
import { loadEnv } from '../../../src/config/env.js';
import { DEFAULT_SETTINGS, type PoolSettings } from '../../../src/config/settings-schema.js';
import { peerCandidates, type UsablePeer } from '../../../src/placement/candidates.js';
import { peerPressure, peerQueueDepth, UNKNOWN_PRESSURE } from '../../../src/placement/peer-load.js';
import { place, STEPS } from '../../../src/placement/pipeline.js';
import { rankCandidates } from '../../../src/placement/rank.js';
import { affinityHeldId } from '../../../src/placement/steps/affinity.js';
import { ThroughputBook } from '../../../src/placement/throughput/book.js';
import { PrefixAffinity } from '../../../src/placement/affinity/prefix-affinity.js';
import type { Candidate, PlacementStep, WithheldFact } from '../../../src/placement/types.js';
import { requestedWindow } from '../../../src/placement/window.js';
import { advertOf, type ThroughputAdvert } from '../../../src/peers/throughput-advert.js';
import { estimatedPromptTokens, headerBudgetMs } from '../../../src/proxy/header-budget.js';
import { placementInputs } from '../../../src/proxy/placement-inputs.js';
import { nodeLimits } from '../../../src/proxy/pool-proxy.js';
import { ROUTED_ROUTES, type RoutedRoute } from '../../../src/proxy/route-table.js';
import { ThroughputSampler } from '../../../src/proxy/throughput-sampler.js';
import { engineModelKey, WithholdBook } from '../../../src/proxy/withhold-book.js';
import type { AttemptStart, FailedAttempt, WalkSettled } from '../../../src/proxy/walk-types.js';
import type { AttemptFailure } from '../../../src/proxy/failover-policy.js';
import type { HardwareTier } from '../../../src/machine/hardware-tier.js';
import { publishedTier } from '../hardware.js';
import type { Policy, PolicyFactory, Settled, World } from '../policy.js';
import type { TraceRequest } from '../trace.js';

export const HUB_ENV = loadEnv({});

/** The local engine id a serving node's own Hub files its readings under. */
const LOCAL_BACKEND = 'ollama';

interface Snapshot {
  readonly atMs: number;
  /** inFlightRequests the node reported. */
  readonly inFlight: number;
  /** This Hub's forwards to the node at that moment. */
  readonly forwardedAtSnapshot: number;
  readonly advert: ThroughputAdvert | null;
  readonly unservable: readonly string[];
}

interface Walk {
  readonly order: readonly Candidate[];
  readonly failures: FailedAttempt[];
  readonly budgetMs: number;
}

/** The Hub half on a serving node: what it times and what it marks unservable. */
class ServingHub {
  readonly book: ThroughputBook;
  readonly sampler: ThroughputSampler;
  readonly unservable: WithholdBook;
  constructor(world: World, node: string) {
    this.book = new ThroughputBook(world.q);
    this.sampler = new ThroughputSampler({ book: this.book, aloneOn: () => world.engines.get(node)!.inFlight === 1 });
    this.unservable = new WithholdBook(world.q);
  }
}

class EntryHub {
  readonly forwards = new Map<string, number>();
  readonly snapshots = new Map<string, Snapshot>();
  readonly book: ThroughputBook;
  readonly sampler: ThroughputSampler;
  readonly affinity: PrefixAffinity;
  readonly outputFaults: WithholdBook;
  readonly walks = new Map<string, Walk>();
  constructor(world: World, node: string) {
    this.book = new ThroughputBook(world.q);
    // As src/system.ts wires it: the local engine is alone when it has one request; a peer when this Hub sends it one.
    this.sampler = new ThroughputSampler({
      book: this.book,
      aloneOn: (c) => (c.node === 'local' ? world.engines.get(node)!.inFlight === 1 : (this.forwards.get(c.node) ?? 0) === 1),
    });
    this.affinity = new PrefixAffinity({ clock: world.q, ttlMs: HUB_ENV.prefixAffinityTtlMs });
    this.outputFaults = new WithholdBook(world.q);
  }
}

export interface HubPoolOptions {
  readonly name: string;
  readonly settings: Partial<PoolSettings>;
  /** The pipeline's steps; [] is ranking by queue depth alone (the build before the placement rules). */
  readonly steps?: readonly PlacementStep[];
  /**
   * The hardwareTier each peer reads for a node. 'published' (every compared policy): what the
   * node's Hub publishes, the Hub's rule on the fleet file's hardware facts (hardware.ts).
   * 'none': no node publishes one, the build before tier detection. 'serving', a what-if: a node
   * whose engine reads prompts on the CPU publishes cpu-only whatever its machine holds (core-7
   * has a GPU its Ollama does not use), so the rule's blind spot can be priced. `{ byNode }`: each
   * node publishes the tier given for it (null: none), as read from real Hubs in the validation
   * run (validate/run.ts), where they all detect the one machine they run on.
   */
  readonly tiers?: 'published' | 'none' | 'serving' | { readonly byNode: Readonly<Record<string, HardwareTier | null>> };
  /**
   * What-if: every request enters through one Hub, which then sees every forward live, as a
   * central router does. Separates the cost of a symmetric pool's partial view (each Hub sees the
   * others' work only through health polls) from the cost of the rules. Off in the compared policies.
   */
  readonly singleEntry?: boolean;
  /**
   * Each entry Hub reaches its own node's engine as a local candidate (live queue, the
   * poolLocalAffinity head start, its own slots and cap from its settings) and the others as peers,
   * as a real Hub does. Off in the compared policies, which reach every engine as a peer; on in
   * the validation run (validate/run.ts) beside a run with it off, so the two can be told apart.
   */
  readonly localEntry?: boolean;
  /** Summed process CPU time spent placing, µs, and placements made (scale report). */
  readonly cpu?: { us: number; placements: number };
}

const routeOf = (path: string): RoutedRoute => ROUTED_ROUTES.find((r) => r.path === path)!;

export function hubPool(opts: HubPoolOptions): PolicyFactory {
  return (world: World): Policy => {
    const settings: PoolSettings = { ...DEFAULT_SETTINGS, ...opts.settings };
    const steps = opts.steps ?? STEPS;
    const nodes = [...world.engines.keys()];
    const serving = new Map(nodes.map((n) => [n, new ServingHub(world, n)]));
    const hubs = new Map<string, EntryHub>();
    const modelOf = (r: TraceRequest) => (r.model === 'chat' ? world.fleet.model : world.fleet.embedModel);
    const pollMs = settings.poolHealthPollSeconds * 1000;
    const tierMode = opts.tiers ?? 'published';
    const tiers = new Map<string, HardwareTier | null>(
      nodes.map((n) => {
        const spec = world.engines.get(n)!.spec;
        if (typeof tierMode === 'object') return [n, tierMode.byNode[n] ?? null];
        if (tierMode === 'none') return [n, null];
        if (tierMode === 'serving' && !spec.gpu) return [n, 'cpu-only'];
        return [n, publishedTier(spec)];
      }),
    );

    const poll = (hub: EntryHub) => {
      for (const n of nodes) {
        const s = serving.get(n)!;
        const unservable = s.unservable.withheld().length > 0 ? [world.fleet.model] : [];
        hub.snapshots.set(n, {
          atMs: world.q.nowMs(),
          inFlight: world.inFlight.get(n) ?? 0,
          forwardedAtSnapshot: hub.forwards.get(n) ?? 0,
          advert: advertOf(s.book.estimates((k) => k.node === 'local')),
          unservable,
        });
      }
    };
    const hubFor = (requested: string): EntryHub => {
      const entry = opts.singleEntry ? nodes[0]! : requested;
      let hub = hubs.get(entry);
      if (hub === undefined) {
        const h = new EntryHub(world, entry);
        hubs.set(entry, h);
        poll(h);
        // Polls repeat for as long as the run has events to answer; a Hub's poll phase is its own.
        const tick = () => {
          poll(h);
          if (world.q.nowMs() < lastNeededMs) world.q.after(pollMs, tick);
        };
        world.q.after(pollMs, tick);
        hub = h;
      }
      return hub;
    };
    let lastNeededMs = 0;
    let placementErrors = 0;
    let firstPlacementError: string | null = null;

    const entryOf = (r: TraceRequest) => (opts.singleEntry ? nodes[0]! : r.entry);
    const hubOf = (r: TraceRequest) => hubs.get(entryOf(r))!;
    /** The node a candidate runs on: its own, or the entry's for the entry Hub's local engine. */
    const nodeOfCandidate = (r: TraceRequest, c: Candidate) => (c.node === 'local' ? entryOf(r) : c.node);

    const usablePeers = (hub: EntryHub): UsablePeer[] =>
      nodes.map((n) => {
        const snap = hub.snapshots.get(n)!;
        const spec = world.engines.get(n)!.spec;
        const fwd = hub.forwards.get(n) ?? 0;
        return {
          peerId: n,
          name: n,
          origin: `https://${n}`,
          backends: [{ kind: 'ollama', models: [world.fleet.model, world.fleet.embedModel] }],
          queueDepth: peerQueueDepth(fwd, snap.inFlight, snap.forwardedAtSnapshot),
          hardwareTier: tiers.get(n)!,
          pressure: peerPressure(null, fwd),
          unservableModels: snap.unservable,
          modelDetails: new Map(),
          maxPromptTokens: null,
          maxNumCtx: spec.maxNumCtx,
          ollamaSlots: spec.statesSlots ? spec.slots : null,
          throughput: snap.advert,
          snapshotAtMs: snap.atMs,
        };
      });

    const attemptStart = (r: TraceRequest, c: Candidate, index: number): AttemptStart => ({ requestId: r.id, model: modelOf(r), candidate: c, index });
    const localCandidate = (n: string): Candidate => ({
      id: `local/${LOCAL_BACKEND}`,
      node: 'local',
      backendId: LOCAL_BACKEND,
      engine: 'ollama',
      url: 'http://127.0.0.1:11434',
      queueDepth: Math.max(0, world.engines.get(n)!.inFlight - 1),
      loadReported: true,
      peerId: null,
      hardwareTier: null,
      pressure: 1,
    });

    /** The entry node's own engine as its Hub lists it (localCandidates): the proxy's live count of work on it, no tier, its own pressure unknown. */
    const ownEngine = (n: string): Candidate => ({ ...localCandidate(n), queueDepth: world.engines.get(n)!.inFlight, pressure: UNKNOWN_PRESSURE });

    return {
      name: opts.name,
      order(r: TraceRequest): string[] {
        lastNeededMs = Math.max(lastNeededMs, world.q.nowMs() + 3 * pollMs);
        const started = opts.cpu ? process.cpuUsage() : null;
        const hub = hubFor(r.entry);
        const route = routeOf(r.path);
        const model = modelOf(r);
        const entry = entryOf(r);
        const local = opts.localEntry === true;
        const nodeOf = (c: Candidate) => nodeOfCandidate(r, c);
        const peers = local ? usablePeers(hub).filter((p) => p.peerId !== entry) : usablePeers(hub);
        const entrySpec = world.engines.get(entry)!.spec;
        // A Hub states its own engine's slots and cap in its settings (inferenceOllamaSlots, inferenceMaxNumCtx).
        const hubSettings: PoolSettings = local
          ? { ...settings, inferenceOllamaSlots: entrySpec.statesSlots ? entrySpec.slots : null, inferenceMaxNumCtx: entrySpec.maxNumCtx }
          : settings;
        // As localCandidates does: an engine its own Hub marked unservable for the model is no candidate.
        const ownServes = local && !serving.get(entry)!.unservable.isWithheld(engineModelKey('local', LOCAL_BACKEND, model));
        const candidates = [...(ownServes ? [ownEngine(entry)] : []), ...peerCandidates(peers, model, route.dialect)];
        const ranked = rankCandidates(candidates, { localAffinity: settings.poolLocalAffinity, pressureWeight: settings.poolPressureWeight });
        const affinity = hub.affinity.contextFor({ model, judgedRoute: route.completion, sessionHeader: undefined, body: r.body }, settings);
        const bodyBytes = r.promptTokens * 4;
        const estimatedTokens = estimatedPromptTokens(bodyBytes);
        const nowMs = world.q.nowMs();
        const budgetMs = headerBudgetMs(bodyBytes, HUB_ENV.firstByteTimeoutMs, HUB_ENV.minPrefillTokensPerSec);
        const withheld = (c: Candidate) => hub.outputFaults.isWithheld(engineModelKey(nodeOf(c), null, model));
        const heldId = affinityHeldId([ranked], affinity);
        const inputs = placementInputs({
          route,
          model,
          candidates: ranked,
          peers,
          settings: hubSettings,
          env: HUB_ENV.knobs,
          estimatedTokens,
          budgetMs,
          numCtx: r.numCtx,
          defaultNumCtx: null,
          book: hub.book,
          busy: new Map(),
          withheld,
          // Nothing is busy in this model, so the node affinity qualified is held (contention-hold.ts).
          affinityHeld: heldId,
          nowMs,
        });
        const withheldFacts = new Map<string, WithheldFact>();
        for (const c of ranked) {
          const e = hub.outputFaults.withheldEntry(engineModelKey(nodeOf(c), null, model));
          if (e !== null) withheldFacts.set(c.id, { until: e.until, reason: e.reason });
        }
        let placed: ReturnType<typeof place>;
        try {
          placed = place(
            ranked,
            {
              model,
              pins: settings.poolPins,
              route: { path: route.path, judgesPrompt: route.completion },
              estimatedTokens,
              window: requestedWindow(r.numCtx, estimatedTokens),
              nowMs,
              limits: nodeLimits(HUB_ENV, hubSettings, peers),
              withheld: withheldFacts,
              ...inputs,
              affinity,
            },
            steps,
          );
        } catch (e) {
          // The pipeline's own check (assertOnlyDemoted) threw: the real Hub answers this request
          // with an error, so the simulated one does too (an empty walk: the app gets a 502 and retries).
          placementErrors++;
          if (firstPlacementError === null) firstPlacementError = e instanceof Error ? e.message : String(e);
          hub.walks.set(r.id, { order: [], failures: [], budgetMs });
          return [];
        }
        // As the proxy does as its walk begins; an empty order is never walked here, so nothing would let the key go.
        if (affinity !== null && placed.order.length > 0) hub.affinity.follow(r.id, affinity);
        hub.walks.set(r.id, { order: placed.order, failures: [], budgetMs });
        if (started !== null && opts.cpu) {
          const d = process.cpuUsage(started);
          opts.cpu.us += d.user + d.system;
          opts.cpu.placements++;
        }
        return placed.order.map(nodeOf);
      },

      finish() {
        if (firstPlacementError !== null) process.stderr.write(`  ${opts.name}: placement threw ${placementErrors} times; first: ${firstPlacementError}\n`);
        return { placementErrors };
      },

      onAttempt(r, index, node) {
        const hub = hubOf(r);
        const c = hub.walks.get(r.id)!.order[index]!;
        hub.forwards.set(node, (hub.forwards.get(node) ?? 0) + 1);
        const a = attemptStart(r, c, index);
        hub.sampler.onAttempt(a);
        hub.affinity.observer.onAttempt!(a);
        serving.get(node)!.sampler.onAttempt(attemptStart(r, localCandidate(node), 0));
      },

      onAttemptEnd(r, index, node, failure: AttemptFailure | null, degenerate) {
        const hub = hubOf(r);
        const walk = hub.walks.get(r.id)!;
        hub.forwards.set(node, (hub.forwards.get(node) ?? 1) - 1);
        const model = modelOf(r);
        const s = serving.get(node)!;
        const localKey = engineModelKey('local', LOCAL_BACKEND, model);
        if (failure !== null) walk.failures.push({ candidate: walk.order[index]!, failure });
        if (failure?.kind === 'status' && failure.status >= 500) s.unservable.strike(localKey, 'engine-500');
        else if (failure === null && !degenerate) s.unservable.clear(localKey);
        if (degenerate) hub.outputFaults.strike(engineModelKey(node, null, model), 'degenerate-output');
        else if (failure === null) hub.outputFaults.clear(engineModelKey(node, null, model));
      },

      onSettled(r, st: Settled) {
        const hub = hubOf(r);
        const walk = hub.walks.get(r.id)!;
        hub.walks.delete(r.id);
        const route = routeOf(r.path);
        const base = {
          requestId: r.id,
          model: modelOf(r),
          route,
          stream: r.stream,
          bodyBytes: r.promptTokens * 4,
          budgetMs: walk.budgetMs,
          verdict: null,
          stoppedReadingMs: null,
        };
        const served = st.attempt === null ? null : walk.order[st.attempt - 1]!;
        const settled: WalkSettled = {
          ...base,
          end: st.end,
          served,
          attempt: st.attempt,
          status: st.status,
          headersMs: st.headersMs,
          attemptHeadersMs: st.attemptHeadersMs,
          totalMs: st.totalMs,
          bodyFault: st.degenerate ? { kind: 'output', fault: 'degenerate-output' } : null,
          failures: walk.failures,
          engineTimings: () => st.timings,
        };
        hub.sampler.onSettled(settled);
        hub.affinity.observer.onSettled!(settled);
        // The serving node's own Hub sees one inbound attempt per node asked: the served one answered, the others were closed on it.
        for (const f of walk.failures) {
          serving.get(nodeOfCandidate(r, f.candidate))!.sampler.onSettled({
            ...base,
            end: 'hung-up',
            served: null,
            attempt: null,
            status: null,
            headersMs: null,
            attemptHeadersMs: null,
            totalMs: st.totalMs,
            bodyFault: null,
            failures: [],
            engineTimings: () => null,
          });
        }
        if (served !== null && st.end === 'committed') {
          const local = localCandidate(nodeOfCandidate(r, served));
          serving.get(nodeOfCandidate(r, served))!.sampler.onSettled({ ...settled, served: local, attempt: 1, failures: [] });
        }
      },
    };
  };
}
