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
 * Concurrent reads share one probe per engine rather than stacking probes on a slow port.
 */
import type { Dispatcher } from 'undici';
import type { EngineEndpoint } from '../config/env.js';
import type { Clock } from '../util/clock.js';
import { ADAPTERS } from './adapters.js';
import type { BackendView, ProbeAnswer } from './types.js';

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
}

export interface BackendHealthDeps {
  readonly endpoints: readonly EngineEndpoint[];
  readonly dispatcher: Dispatcher;
  readonly clock: Clock;
  /** poolProbeSnapshotTtlMs, read on every call so a PATCH applies to the next request. */
  readonly ttlMs: () => number;
}

export class BackendHealth {
  readonly #deps: BackendHealthDeps;
  readonly #states: BackendState[];
  readonly #closing = new AbortController();

  constructor(deps: BackendHealthDeps) {
    this.#deps = deps;
    this.#states = deps.endpoints.map((endpoint) => ({ endpoint, answer: null, answeredAtMs: null, generation: 0, probing: null }));
  }

  /** Every engine's view for one placement, following the TTL rules above. */
  async read(): Promise<BackendView[]> {
    const ttl = this.#deps.ttlMs();
    if (ttl === 0) {
      await Promise.all(this.#states.map((s) => this.#probe(s)));
      return this.#states.map((s) => this.#view(s));
    }
    const now = this.#deps.clock.nowMs();
    const cold = new Map<BackendState, number>();
    for (const s of this.#states) {
      const age = s.answeredAtMs === null ? Infinity : now - s.answeredAtMs;
      if (age < ttl) continue;
      if (age < ttl + STALE_GRACE_MS) void this.#probe(s);
      else cold.set(s, s.generation);
    }
    if (cold.size > 0) await this.#waitWithinBudget([...cold.keys()].map((s) => this.#probe(s)));
    return this.#states.map((s) => (cold.get(s) === s.generation ? this.#unanswered(s) : this.#view(s)));
  }

  /** The latest answers without probing, for status; refreshes in the background when older than INVENTORY_CACHE_MS. */
  latest(): BackendView[] {
    const now = this.#deps.clock.nowMs();
    for (const s of this.#states) {
      if (s.answeredAtMs === null || now - s.answeredAtMs >= INVENTORY_CACHE_MS) void this.#probe(s);
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

  #probe(s: BackendState): Promise<void> {
    if (s.probing) return s.probing;
    const adapter = ADAPTERS[s.endpoint.kind];
    s.probing = adapter
      .probe(s.endpoint.url, this.#deps.dispatcher, this.#closing.signal)
      .then((answer) => {
        s.answer = answer;
        s.answeredAtMs = this.#deps.clock.nowMs();
        s.generation += 1;
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

  #view(s: BackendState): BackendView {
    const base = { backendId: s.endpoint.id, kind: s.endpoint.kind, url: s.endpoint.url };
    if (s.answer === null || s.answeredAtMs === null) {
      return { ...base, running: false, healthy: false, models: [], error: 'not probed yet', probedMsAgo: null };
    }
    return { ...base, ...s.answer, probedMsAgo: Math.max(0, this.#deps.clock.nowMs() - s.answeredAtMs) };
  }

  #unanswered(s: BackendState): BackendView {
    return {
      backendId: s.endpoint.id,
      kind: s.endpoint.kind,
      url: s.endpoint.url,
      running: false,
      healthy: false,
      models: [],
      error: `no answer within the ${PLACEMENT_BUDGET_MS} ms placement budget; still probing in the background`,
      probedMsAgo: null,
    };
  }
}
