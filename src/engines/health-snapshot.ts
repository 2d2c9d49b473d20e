/**
 * BackendHealth: each local engine's last probe answer, read by placement under the TTL
 * rules of spec "Placement reads a snapshot, not a live probe":
 *
 * - TTL 0 (the default): every read probes every engine live and waits for it, unless an answer
 *   landed under LIVE_PROBE_REUSE_MS ago (see there): that one is as live as a shared probe.
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
 *
 * Beside the probe, what an engine says about its own queue (engine-queue-reader.ts) rides on
 * the same reads: a read or a status look starts a report in the background when the last one
 * asked is QUEUE_REPORT_REFRESH_MS old, and no read ever waits for one, so the hot path gains
 * no request; an idle tick (QUEUE_REPORT_IDLE_REFRESH_MS) keeps it fresh between requests.
 * The work a read starts behind itself (these reports, a stale refresh) is started once the
 * reading request's I/O callback is done (Background.soon). Started in line, its undici dispatch
 * and socket write came before the request's own upstream write: a caller whose requests come a
 * second or more apart paid that on each, and at one connection on token streams the request
 * step inside the Hub went from 1.01 to 0.82 ms at p50 (bench/README.md, 2026-12-04 21:10).
 * A report older than QUEUE_REPORT_MAX_AGE_MS, or one that failed, reads as null.
 *
 * Every age here is elapsedMs (util/clock.ts): an answer or report stamped ahead of a wall clock
 * set back since counts as long past, so it is asked for again rather than kept for the step.
 */
import { defaultMaxListeners, setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import type { EngineEndpoint } from '../config/env.js';
import type { Background } from '../util/background.js';
import { elapsedMs, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { systemTimer, type Timer } from '../util/timer.js';
import { ADAPTERS } from './adapters.js';
import type { EngineQueueReport, EngineQueueView } from './engine-queue.js';
import { engineHealthLine } from './health-snapshot-log.js';
import type { BackendView, ModelInfo, ProbeAnswer } from './types.js';

/** How long past its TTL a snapshot is still served while it refreshes: 60 s. */
export const STALE_GRACE_MS = 60_000;
/**
 * At TTL 0, an answer that landed less than 2 ms ago is used as the live probe, not asked again.
 * Reads that overlap already share one probe, so a read can get an answer whose probe started
 * a round trip before it arrived; an answer that landed within a couple of ms is no older than
 * that, and the TTL-0 contract (no snapshot, a stall still felt by every read) is kept: an engine
 * that stops answering is never reused, since nothing lands. What it buys is the lone client's
 * back-to-back requests: each paid a whole probe first (+0.18 ms p50, bench/README.md), and now
 * one in several does. A quarantine the proxy records marks the answer for a re-probe (drop()),
 * so it is never reused across one.
 */
export const LIVE_PROBE_REUSE_MS = 2;
/** How long one placement read waits for cold engines in total: 500 ms. */
export const PLACEMENT_BUDGET_MS = 500;
/** Age past which status and the advertised inventory refresh in the background: 20 s. */
export const INVENTORY_CACHE_MS = 20_000;
/**
 * Least time between two queue reports asked of one engine: 1 s. Under load every request
 * reads the snapshot, so this is the report's cadence then: a queue a second old, at one small
 * GET per engine per second (vLLM's /metrics text is tens of KiB).
 */
export const QUEUE_REPORT_REFRESH_MS = 1_000;
/**
 * How often the reports are refreshed while nothing reads the snapshot: 5 s (system.ts runs
 * refreshQueueReports on this tick). Without it, the first request after a quiet spell would
 * read a queue from whenever the last request came, and a direct client that finished since
 * would still push work away; with it, an idle Hub's report is at most this old.
 */
export const QUEUE_REPORT_IDLE_REFRESH_MS = 5_000;
/**
 * Age past which a queue report is not read: 15 s, three idle refreshes. Reports that stopped
 * landing (each read is bounded at 2 s, so only a stopped tick does this) go by the proxy's own
 * count rather than by an old queue.
 */
export const QUEUE_REPORT_MAX_AGE_MS = 15_000;

/** Asks one engine for its queue report (engine-queue-reader.ts); null when it said nothing. Never rejects. */
export type QueueReportReader = (endpoint: EngineEndpoint, dispatcher: Dispatcher, signal: AbortSignal) => Promise<EngineQueueReport | null>;

interface QueueReading {
  readonly report: EngineQueueReport;
  readonly atMs: number;
  readonly ownInFlight: number;
}

interface BackendState {
  readonly endpoint: EngineEndpoint;
  answer: ProbeAnswer | null;
  answeredAtMs: number | null;
  /** Bumped by every answer, so a read can tell whether a cold engine answered while it waited. */
  generation: number;
  /** Probes in a row that came back unhealthy; told to the log when the engine answers again. */
  failures: number;
  /** Counts drop() calls; while it differs from probedDrops the engine must be probed again before placement reads it. */
  drops: number;
  /** The drops count when the probe behind the current answer started: an answer asked for before a drop does not settle it. */
  probedDrops: number;
  probing: Promise<void> | null;
  /** True from a refresh being asked for until it runs: the reads and status calls meanwhile ask for no other. */
  refreshAsked: boolean;
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
  /** The last queue report that answered; null before one did, or after one failed. */
  queue: QueueReading | null;
  /** When the last queue report was asked for; null before the first. */
  queueAskedAtMs: number | null;
  queueReading: boolean;
  /** The reading the last view's engineQueue was built from. */
  viewQueue: QueueReading | null;
}

const NO_MODELS: readonly ModelInfo[] = Object.freeze([]);

export interface BackendHealthDeps {
  readonly endpoints: readonly EngineEndpoint[];
  readonly dispatcher: Dispatcher;
  readonly clock: Clock;
  /** Starts the placement budget's wait; Node's timers unless given (tests pass their ManualClock). */
  readonly timer?: Timer;
  /** poolProbeSnapshotTtlMs, read on every call so a PATCH applies to the next request. */
  readonly ttlMs: () => number;
  /** Owns the refreshes nobody waits for. */
  readonly background: Background;
  /** Where an engine that stops or starts answering is told of (health-snapshot-log.ts). */
  readonly logger: Logger;
  /** Reads each engine's own queue report; absent, no report is asked and every view's engineQueue is null. */
  readonly readQueue?: QueueReportReader;
  /** Requests the proxy has in flight on an engine now, recorded with each report (placement/local-queue-depth.ts). */
  readonly ownInFlight?: (backendId: string) => number;
}

export class BackendHealth {
  readonly #deps: BackendHealthDeps;
  readonly #states: BackendState[];
  readonly #closing = new AbortController();

  constructor(deps: BackendHealthDeps) {
    this.#deps = deps;
    // Every probe and queue report in flight listens to this one signal, and lets go when it ends:
    // with six vLLM engines (a probe and a report each) the count passed Node's default of 10 and it
    // printed a memory-leak warning that was none (audit, 2026-12-07). One of each per engine at
    // most, so a count past that is still worth a warning.
    setMaxListeners(Math.max(defaultMaxListeners, 2 * deps.endpoints.length), this.#closing.signal);
    this.#states = deps.endpoints.map((endpoint) => ({
      endpoint,
      answer: null,
      answeredAtMs: null,
      generation: 0,
      failures: 0,
      drops: 0,
      probedDrops: 0,
      probing: null,
      refreshAsked: false,
      budgetSpent: false,
      view: null,
      viewAnswer: null,
      unanswered: null,
      queue: null,
      queueAskedAtMs: null,
      queueReading: false,
      viewQueue: null,
    }));
  }

  /** Every engine's view for one placement, following the TTL rules above. */
  async read(): Promise<BackendView[]> {
    this.#refreshQueues();
    const ttl = this.#deps.ttlMs();
    if (ttl === 0) {
      const now = this.#deps.clock.nowMs();
      const due = this.#states.filter((s) => s.answeredAtMs === null || s.drops !== s.probedDrops || elapsedMs(now, s.answeredAtMs) >= LIVE_PROBE_REUSE_MS);
      if (due.length > 0) await Promise.all(due.map((s) => this.#probe(s)));
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
    return this.#readWith(INVENTORY_CACHE_MS, null);
  }

  /** graceMs null: an answer of any age is served while it refreshes (a listing). */
  async #readWith(ttl: number, graceMs: number | null): Promise<BackendView[]> {
    const now = this.#deps.clock.nowMs();
    let cold: Map<BackendState, number> | null = null; // made only when an engine is cold: rare
    for (const s of this.#states) {
      const at = s.drops === s.probedDrops ? s.answeredAtMs : null; // a dropped answer is cold
      const age = at === null ? Infinity : elapsedMs(now, at);
      if (age < ttl) continue;
      if (at !== null && (graceMs === null || age < ttl + graceMs)) this.#refresh(s);
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
    this.#refreshQueues();
    const now = this.#deps.clock.nowMs();
    for (const s of this.#states) {
      if (s.answeredAtMs === null || s.drops !== s.probedDrops || elapsedMs(now, s.answeredAtMs) >= INVENTORY_CACHE_MS) this.#refresh(s);
    }
    return this.#states.map((s) => this.#view(s));
  }

  /**
   * Makes placement re-probe one engine before it trusts its answer again (the proxy learned
   * something the snapshot does not know: a withhold or a release). read() and snapshot() then
   * treat the engine as cold; latest() keeps serving the last answer and refreshes it behind the
   * caller, because what the engine holds has not changed: status, the metrics and /capabilities
   * went blank until the next probe landed, and a peer polling in that gap kept "no models on
   * that engine" for a whole poll (spec, "Placement reads a snapshot": the withheld model is
   * published as unservable, the rest as held).
   */
  drop(backendId: string): void {
    const s = this.#states.find((x) => x.endpoint.id === backendId);
    if (s) s.drops += 1;
  }

  /** Starts the queue reports that are due, without waiting for them (the idle tick; reads and status looks do this themselves). */
  refreshQueueReports(): void {
    this.#refreshQueues();
  }

  /** Stops background probes (on shutdown). */
  close(): void {
    this.#closing.abort();
  }

  /**
   * Starts a queue report for every engine whose last one was asked QUEUE_REPORT_REFRESH_MS ago
   * or more, none in flight, and that did not last answer as not running (a dead port is the
   * probe's to notice). Nobody waits for these.
   */
  #refreshQueues(): void {
    const readQueue = this.#deps.readQueue;
    if (readQueue === undefined) return;
    const now = this.#deps.clock.nowMs();
    for (const s of this.#states) {
      if (s.queueReading || s.answer?.running === false) continue;
      if (s.queueAskedAtMs !== null && elapsedMs(now, s.queueAskedAtMs) < QUEUE_REPORT_REFRESH_MS) continue;
      s.queueReading = true;
      s.queueAskedAtMs = now;
      this.#deps.background.soon('engine queue report', async () => {
        try {
          const report = await readQueue(s.endpoint, this.#deps.dispatcher, this.#closing.signal).catch(() => null);
          s.queue = report === null ? null : { report, atMs: this.#deps.clock.nowMs(), ownInFlight: this.#deps.ownInFlight?.(s.endpoint.id) ?? 0 };
        } finally {
          s.queueReading = false;
        }
      });
    }
  }

  /**
   * A probe nobody waits for (a stale or aging answer refreshing behind the reads). Started
   * after the reading request's own upstream write, like the queue reports (the class comment).
   */
  #refresh(s: BackendState): void {
    if (s.probing !== null || s.refreshAsked) return;
    s.refreshAsked = true;
    const asked = s.generation;
    this.#deps.background.soon('engine probe', () => {
      s.refreshAsked = false;
      // An answer that landed since (a read's own probe, finishing in the turn the refresh was
      // asked for) is the refresh: probing again would ask the engine twice for one answer.
      return s.generation === asked ? this.#probe(s) : undefined;
    });
  }

  /** Never rejects: an adapter that throws (a bug, or an answer nobody foresaw) reads as an unhealthy engine. */
  #probe(s: BackendState): Promise<void> {
    if (s.probing) return s.probing;
    const drops = s.drops;
    const adapter = ADAPTERS[s.endpoint.kind];
    s.probing = adapter
      .probe(s.endpoint.url, this.#deps.dispatcher, this.#closing.signal)
      .catch((err: unknown): ProbeAnswer => ({
        running: false,
        healthy: false,
        models: NO_MODELS,
        error: `the probe failed: ${err instanceof Error ? err.message : String(err)}`,
      }))
      .then((answer) => {
        // A probe cut short by close() says nothing about the engine.
        if (!this.#closing.signal.aborted) this.#log(s, answer);
        s.answer = answer;
        s.answeredAtMs = this.#deps.clock.nowMs();
        s.probedDrops = drops;
        s.generation += 1;
        s.budgetSpent = false;
      })
      .finally(() => {
        s.probing = null;
      });
    return s.probing;
  }

  #log(s: BackendState, answer: ProbeAnswer): void {
    const line = engineHealthLine(s.endpoint, s.answer, answer, s.failures);
    s.failures = answer.healthy ? 0 : s.failures + 1;
    if (line !== null) this.#deps.logger[line.level](line.fields, line.msg);
  }

  async #waitWithinBudget(probes: Promise<void>[]): Promise<void> {
    let cancel: (() => void) | undefined;
    const budget = new Promise<void>((resolve) => {
      cancel = (this.#deps.timer ?? systemTimer).after(PLACEMENT_BUDGET_MS, resolve);
    });
    await Promise.race([Promise.all(probes), budget]);
    cancel?.();
  }

  /**
   * The engine's view now. What it says depends only on the answer (replaced whole, never
   * changed) and its age in whole ms, so the view last built is returned again while both are
   * the same; views are frozen because several reads share one.
   */
  #view(s: BackendState): BackendView {
    const at = s.answeredAtMs;
    const answer = at === null ? null : s.answer;
    const now = this.#deps.clock.nowMs();
    // An answer stamped ahead of the clock shows as 0 ms old, not null (which reads "not probed
    // yet"): it is a real answer, and every read and status look probes it again at once.
    const probedMsAgo = at === null || answer === null ? null : Math.max(0, now - at);
    const queue = s.queue !== null && elapsedMs(now, s.queue.atMs) <= QUEUE_REPORT_MAX_AGE_MS ? s.queue : null;
    const queueAge = queue === null ? null : elapsedMs(now, queue.atMs);
    const cached = s.view;
    if (
      cached !== null &&
      s.viewAnswer === answer &&
      cached.probedMsAgo === probedMsAgo &&
      s.viewQueue === queue &&
      (cached.engineQueue?.reportedMsAgo ?? null) === queueAge
    )
      return cached;
    const { id: backendId, kind, url } = s.endpoint;
    const engineQueue = queue === null ? null : queueView(queue, queueAge ?? 0);
    // Field by field rather than spread: a spread of the answer into a literal that already
    // has fields is V8's slow path (it was most of read()'s time).
    const view: BackendView =
      answer === null
        ? { backendId, kind, url, running: false, healthy: false, models: NO_MODELS, error: 'not probed yet', probedMsAgo: null, engineQueue }
        : { backendId, kind, url, running: answer.running, healthy: answer.healthy, models: answer.models, error: answer.error, probedMsAgo, engineQueue };
    s.view = Object.freeze(view);
    s.viewAnswer = answer;
    s.viewQueue = queue;
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

function queueView(q: QueueReading, reportedMsAgo: number): EngineQueueView {
  const { running, waiting, slots } = q.report;
  return Object.freeze({ running, waiting, slots, ownInFlightAtReport: q.ownInFlight, reportedMsAgo });
}
