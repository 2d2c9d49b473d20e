/**
 * BackendHealth: each local engine's last probe answer, read by placement under the TTL
 * rules of spec "Placement reads a snapshot, not a live probe":
 *
 * - TTL 0 (the default): every read probes every engine live and waits for it.
 * - fresh (younger than the TTL): served as is.
 * - stale (past the TTL, within STALE_GRACE_MS more): served as is; a refresh runs behind it.
 * - cold (nothing usable): the read starts a probe and waits for it, but all cold engines in
 *   one read share PLACEMENT_BUDGET_MS; one still silent then reads as not running and its
 *   probe lands for the next read. A dropped port costs one budget per TTL, not 5 s per request.
 *
 * Listings and the other routes this node answers itself read snapshot() instead: the inventory
 * as last heard (refreshed behind them), never a live probe, whatever the TTL.
 *
 * Concurrent reads share one probe per engine rather than stacking probes on a slow port.
 *
 * Every request reads every engine's view, so a view is built once per answer and age and
 * handed out again (frozen) until one of them changes: with a TTL, most requests under load
 * land in a millisecond whose view already exists.
 */
import type { Dispatcher } from 'undici';
import type { EngineEndpoint } from '../config/env.js';
import type { Background } from '../util/background.js';
import type { Clock } from '../util/clock.js';
import { ADAPTERS } from './adapters.js';
import type { BackendView, ModelInfo, ProbeAnswer } from './types.js';

/** How long past its TTL a snapshot is still served while it refreshes: 60 s. */
export const STALE_GRACE_MS = 60_000;
/** How long one placement read waits for cold engines in total: 500 ms. */
export const PLACEMENT_BUDGET_MS = 500;
/** Age past which status and the advertised inventory refresh in the background: 20 s. */
export const INVENTORY_CACHE_MS = 20_000;

interface BackendState {
  readonly endpoint: EngineEndpoint;
  answer: ProbeAnswer | null;
  answeredAtMs: number | null;
  /** Bumped by every answer, so a read can tell whether a cold engine answered while it waited. */
  generation: number;
  probing: Promise<void> | null;
  /**
   * True once a read has spent its budget on the probe still in flight: later reads do not wait
   * for that probe again (it can take the full 5 s transport timeout), they read the engine as
   * unanswered until it lands. Cleared by every answer.
   */
  budgetSpent: boolean;
  /** The last view #view built, and the answer it was built from: reused while the answer and its age are unchanged. */
  view: BackendView | null;
  viewAnswer: ProbeAnswer | null;
  /** The view of a cold read that ran out of budget; built the first time it is needed. */
  unanswered: BackendView | null;
}

const NO_MODELS: readonly ModelInfo[] = Object.freeze([]);

export interface BackendHealthDeps {
  readonly endpoints: readonly EngineEndpoint[];
  readonly dispatcher: Dispatcher;
  readonly clock: Clock;
  /** poolProbeSnapshotTtlMs, read on every call so a PATCH applies to the next request. */
  readonly ttlMs: () => number;
  /** Owns the refreshes nobody waits for. */
  readonly background: Background;
}

export class BackendHealth {
  readonly #deps: BackendHealthDeps;
  readonly #states: BackendState[];
  readonly #closing = new AbortController();

  constructor(deps: BackendHealthDeps) {
    this.#deps = deps;
    this.#states = deps.endpoints.map((endpoint) => ({
      endpoint,
      answer: null,
      answeredAtMs: null,
      generation: 0,
      probing: null,
      budgetSpent: false,
      view: null,
      viewAnswer: null,
      unanswered: null,
    }));
  }

  /** Every engine's view for one placement, following the TTL rules above. */
  async read(): Promise<BackendView[]> {
    const ttl = this.#deps.ttlMs();
    if (ttl === 0) {
      await Promise.all(this.#states.map((s) => this.#probe(s)));
      return this.#states.map((s) => this.#view(s));
    }
    return this.#readWith(ttl, STALE_GRACE_MS);
  }

  /**
   * Every engine's view for a listing (spec, "What the listing endpoints answer for"): the
   * inventory snapshot whatever poolProbeSnapshotTtlMs says, so a listing never waits out a
   * live probe of an engine that holds its port silently. Any answer is served as is and
   * refreshed behind the caller once it is INVENTORY_CACHE_MS old; only an engine that has
   * never answered (or was dropped) is cold, and waited for within the placement budget, once.
   */
  snapshot(): Promise<BackendView[]> {
    return this.#readWith(INVENTORY_CACHE_MS, Infinity);
  }

  async #readWith(ttl: number, graceMs: number): Promise<BackendView[]> {
    const now = this.#deps.clock.nowMs();
    let cold: Map<BackendState, number> | null = null; // made only when an engine is cold: rare
    for (const s of this.#states) {
      const age = s.answeredAtMs === null ? Infinity : now - s.answeredAtMs;
      if (age < ttl) continue;
      if (s.answeredAtMs !== null && age < ttl + graceMs) this.#refresh(s);
      else (cold ??= new Map()).set(s, s.generation);
    }
    if (cold === null) return this.#states.map((s) => this.#view(s));
    // A cold engine whose probe already ran out one read's budget is not waited for again.
    const waitFor = [...cold.keys()].filter((s) => !(s.probing !== null && s.budgetSpent));
    if (waitFor.length > 0) await this.#waitWithinBudget(waitFor.map((s) => this.#probe(s)));
    const waited = cold;
    for (const [s, generation] of waited) if (s.generation === generation) s.budgetSpent = true;
    return this.#states.map((s) => (waited.get(s) === s.generation ? this.#unanswered(s) : this.#view(s)));
  }

  /** The latest answers without probing, for status; refreshes in the background when older than INVENTORY_CACHE_MS. */
  latest(): BackendView[] {
    const now = this.#deps.clock.nowMs();
    for (const s of this.#states) {
      if (s.answeredAtMs === null || now - s.answeredAtMs >= INVENTORY_CACHE_MS) this.#refresh(s);
    }
    return this.#states.map((s) => this.#view(s));
  }

  /** Forgets one engine's answer so the next read probes it (used when the proxy learns something the snapshot does not know). */
  drop(backendId: string): void {
    const s = this.#states.find((x) => x.endpoint.id === backendId);
    if (s) {
      s.answer = null;
      s.answeredAtMs = null;
    }
  }

  /** Stops background probes (on shutdown). */
  close(): void {
    this.#closing.abort();
  }

  /** A probe nobody waits for (a stale or aging answer refreshing behind the reads). */
  #refresh(s: BackendState): void {
    this.#deps.background.run('engine probe', () => this.#probe(s));
  }

  /** Never rejects: an adapter that throws (a bug, or an answer nobody foresaw) reads as an unhealthy engine. */
  #probe(s: BackendState): Promise<void> {
    if (s.probing) return s.probing;
    const adapter = ADAPTERS[s.endpoint.kind];
    s.probing = adapter
      .probe(s.endpoint.url, this.#deps.dispatcher, this.#closing.signal)
      .catch((err: unknown): ProbeAnswer => ({ running: false, healthy: false, models: NO_MODELS, error: `the probe failed: ${err instanceof Error ? err.message : String(err)}` }))
      .then((answer) => {
        s.answer = answer;
        s.answeredAtMs = this.#deps.clock.nowMs();
        s.generation += 1;
        s.budgetSpent = false;
      })
      .finally(() => {
        s.probing = null;
      });
    return s.probing;
  }

  async #waitWithinBudget(probes: Promise<void>[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, PLACEMENT_BUDGET_MS);
    });
    await Promise.race([Promise.all(probes), budget]);
    clearTimeout(timer);
  }

  /**
   * The engine's view now. What it says depends only on the answer (replaced whole, never
   * changed) and its age in whole ms, so the view last built is returned again while both are
   * the same; views are frozen because several reads share one.
   */
  #view(s: BackendState): BackendView {
    const at = s.answeredAtMs;
    const answer = at === null ? null : s.answer;
    const probedMsAgo = at === null || answer === null ? null : Math.max(0, this.#deps.clock.nowMs() - at);
    const cached = s.view;
    if (cached !== null && s.viewAnswer === answer && cached.probedMsAgo === probedMsAgo) return cached;
    const { id: backendId, kind, url } = s.endpoint;
    // Field by field rather than spread: a spread of the answer into a literal that already
    // has fields is V8's slow path (it was most of read()'s time).
    const view: BackendView =
      answer === null
        ? { backendId, kind, url, running: false, healthy: false, models: NO_MODELS, error: 'not probed yet', probedMsAgo: null }
        : { backendId, kind, url, running: answer.running, healthy: answer.healthy, models: answer.models, error: answer.error, probedMsAgo };
    s.view = Object.freeze(view);
    s.viewAnswer = answer;
    return view;
  }

  #unanswered(s: BackendState): BackendView {
    return (s.unanswered ??= Object.freeze({
      backendId: s.endpoint.id,
      kind: s.endpoint.kind,
      url: s.endpoint.url,
      running: false,
      healthy: false,
      models: NO_MODELS,
      error: `no answer within the ${PLACEMENT_BUDGET_MS} ms placement budget; still probing in the background`,
      probedMsAgo: null,
    }));
  }
}
