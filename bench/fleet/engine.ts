/**
 * One modelled node: an Ollama-like engine serving the fleet's chat model in a fixed number of
 * slots with a FIFO queue behind them, a prompt cache per slot, a load from disk when the model
 * is not resident, a reload (caches lost) when a request asks for another num_ctx, an unload after
 * keep_alive idle, and the faults the fleet file gives it. Prefills running at once share the
 * engine's compute; a decoding request takes `decodeShare` of a prefill's share. Embeddings run
 * beside the chat model at a fixed cost. This is the world the policies are judged in; nothing
 * here is a placement rule.
 */
import type { EventQueue, Scheduled } from './event-queue.js';
import type { FleetSpec, NodeSpec } from './data-files.js';
import { prefillMs } from './prefill.js';
import { Rng } from './rng.js';
import type { Segment, TraceRequest } from './trace.js';

/** What the engine tells the walk about one attempt. */
export interface JobEvents {
  /** The first token (the response's first byte): `cached` tokens came from a slot's cache. */
  firstToken(info: { cachedTokens: number; promptMs: number }): void;
  /** The answer finished (Job.degenerate says whether it was nothing but placeholders). */
  done(info: { decodeMs: number }): void;
  /** A 500 before any byte (the model failed to load). */
  failed(status: number): void;
}

export interface Job {
  readonly request: TraceRequest;
  readonly events: JobEvents;
  readonly submittedMs: number;
  /** This answer will be placeholders (decided at submission from the node's fault). */
  readonly degenerate: boolean;
  phase: 'queued' | 'prefill' | 'decode' | 'over';
  slot: number;
  cached: number;
  /** Prefill work left, ms at the engine's full speed. */
  remainingMs: number;
  prefillStartedMs: number;
  timer: Scheduled | null;
}

interface Slot {
  cache: readonly Segment[];
  lastUsedMs: number;
  job: Job | null;
}

/** Shared prefix of two prompts, in tokens: whole segments while ids match, then the shorter of the first differing one when its id matches. */
export function commonPrefix(a: readonly Segment[], b: readonly Segment[]): number {
  let n = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]!.id !== b[i]!.id) break;
    n += Math.min(a[i]!.tokens, b[i]!.tokens);
    if (a[i]!.tokens !== b[i]!.tokens) break;
  }
  return n;
}

/**
 * Work left below this counts as done: simulated time is epoch milliseconds, whose float
 * resolution near 2026 is about 0.0002 ms, so a smaller step would not move the clock.
 */
const PREFILL_EPSILON_MS = 0.01;

/** Prompt tokens in a list of segments. */
const total = (s: readonly Segment[]) => s.reduce((n, x) => n + x.tokens, 0);

export class Engine {
  readonly spec: NodeSpec;
  readonly #fleet: FleetSpec;
  readonly #q: EventQueue;
  readonly #rng: Rng;
  readonly #slots: Slot[];
  readonly #queue: Job[] = [];
  /** The window the chat model is resident at; null when not resident. */
  #loadedCtx: number | null = null;
  #loading: Scheduled | null = null;
  #embeds = 0;
  #prefillTimer: Scheduled | null = null;
  #lastAdvanceMs = 0;
  #idleSinceMs = 0;
  /** Loads and reloads started, for the report. */
  loads = 0;

  readonly #startMs: number;

  constructor(spec: NodeSpec, fleet: FleetSpec, q: EventQueue, rng: Rng) {
    this.#startMs = q.nowMs();
    this.spec = spec;
    this.#fleet = fleet;
    this.#q = q;
    this.#rng = rng;
    this.#slots = Array.from({ length: spec.slots }, () => ({ cache: [], lastUsedMs: 0, job: null }));
  }

  /** Requests on this engine now: running, queued, loading, and embeddings. */
  get inFlight(): number {
    return this.#slots.filter((s) => s.job !== null).length + this.#queue.length + this.#embeds;
  }

  get resident(): boolean {
    return this.#loadedCtx !== null;
  }

  /** The fault in force at `nowMs` (simulated epoch ms); fault windows count from the start of the run. */
  faultAt(kind: 'fails' | 'placeholders', nowMs: number) {
    const s = (nowMs - this.#startMs) / 1000;
    return this.spec.faults.find((f) => f.kind === kind && s >= f.fromS && s < f.toS) ?? null;
  }

  submit(request: TraceRequest, events: JobEvents): Job {
    const now = this.#q.nowMs();
    const placeholders = this.faultAt('placeholders', now);
    const degenerate = request.model === 'chat' && placeholders !== null && placeholders.kind === 'placeholders' && this.#rng.next() < placeholders.probability;
    const job: Job = { request, events, submittedMs: now, degenerate, phase: 'queued', slot: -1, cached: 0, remainingMs: 0, prefillStartedMs: 0, timer: null };
    if (request.model === 'embed') {
      this.#embeds++;
      job.phase = 'decode';
      job.timer = this.#q.after(this.spec.gpu ? this.#fleet.embedMs.gpu : this.#fleet.embedMs.cpu, () => {
        this.#embeds--;
        job.phase = 'over';
        events.firstToken({ cachedTokens: 0, promptMs: 0 });
        events.done({ decodeMs: 0 });
        this.#touch();
      });
      return job;
    }
    const fails = this.faultAt('fails', now);
    if (fails !== null && fails.kind === 'fails') {
      job.phase = 'over';
      job.timer = this.#q.after(fails.failMs, () => events.failed(500));
      return job;
    }
    this.#queue.push(job);
    this.#pump();
    return job;
  }

  /** The walk gave up on this attempt (its first-byte deadline): it leaves the queue or its slot. */
  cancel(job: Job): void {
    if (job.request.model === 'embed') {
      if (job.phase !== 'over') this.#embeds--;
      job.phase = 'over';
      if (job.timer) job.timer.cancelled = true;
      this.#touch();
      return;
    }
    if (job.phase === 'over') {
      if (job.timer) job.timer.cancelled = true;
      return;
    }
    if (job.phase === 'queued') {
      const i = this.#queue.indexOf(job);
      if (i >= 0) this.#queue.splice(i, 1);
    } else {
      this.#advance();
      const slot = this.#slots[job.slot]!;
      slot.job = null;
      slot.lastUsedMs = this.#q.nowMs();
      if (job.timer) job.timer.cancelled = true;
    }
    job.phase = 'over';
    this.#pump();
    this.#touch();
  }

  /** The chat model's window a request runs at here. */
  windowFor(request: TraceRequest): number {
    return request.numCtx ?? this.spec.defaultNumCtx;
  }

  /** The longest cached prefix any slot holds for `segments` (what an oracle may know). */
  bestCached(segments: readonly Segment[]): number {
    return Math.max(0, ...this.#slots.map((s) => commonPrefix(s.cache, segments)));
  }

  /**
   * What sending `request` here now would cost, from the engine's true state (the oracle's
   * view): `ownMs`, the expected wait for its first token (the slots it waits for, the loads it
   * needs, the cache it would find, the prefills it would share the engine with), and
   * `imposedMs`, the delay it would add to the prefills already running here. Greedy and
   * approximate: it does not foresee later arrivals.
   */
  estimate(request: TraceRequest): { ownMs: number; imposedMs: number } {
    const now = this.#q.nowMs();
    if (this.faultAt('fails', now) !== null) return { ownMs: Number.POSITIVE_INFINITY, imposedMs: 0 };
    if (request.model === 'embed') return { ownMs: this.spec.gpu ? this.#fleet.embedMs.gpu : this.#fleet.embedMs.cpu, imposedMs: 0 };
    const placeholders = this.faultAt('placeholders', now);
    // A placeholder answer is no answer: the oracle knows the odds and prices them as a lost turn.
    const faultMs = placeholders !== null && placeholders.kind === 'placeholders' ? placeholders.probability * 3_600_000 : 0;
    this.#advance();
    const share = this.#share();
    const running = this.#slots.filter((s) => s.job !== null).map((s) => s.job!);
    const left = (j: Job) => (j.phase === 'prefill' ? j.remainingMs * share : 0) + this.#decodeMs(j.request);
    const free = this.#slots.map((s) => (s.job === null ? 0 : left(s.job))).sort((a, b) => a - b);
    for (const j of this.#queue) {
      const read = prefillMs(this.bestCached(j.request.segments), j.request.promptTokens, this.spec.prefillTokensPerSec, this.spec.growthTokens);
      free[0] = free[0]! + read + this.#decodeMs(j.request);
      free.sort((a, b) => a - b);
    }
    const window = this.windowFor(request);
    let wait = free[0]!;
    const startsNow = wait === 0 && this.#loadedCtx === window && this.#loading === null;
    let cached = startsNow
      ? Math.max(0, ...this.#slots.filter((s) => s.job === null).map((s) => commonPrefix(s.cache, request.segments)))
      : this.bestCached(request.segments);
    if (this.#loadedCtx !== window) {
      // A reload waits for everything running, and loses every cache.
      wait = (this.#loadedCtx === null ? 0 : Math.max(...free)) + this.spec.loadMs;
      cached = 0;
    }
    const work = prefillMs(Math.min(cached, request.promptTokens - 1), request.promptTokens, this.spec.prefillTokensPerSec, this.spec.growthTokens);
    if (!startsNow) return { ownMs: wait + work + faultMs, imposedMs: 0 };
    // Processor sharing: each running prefill and this one slow each other by the smaller of their remaining work.
    const prefills = running.filter((j) => j.phase === 'prefill').map((j) => j.remainingMs);
    const ownMs = work + prefills.reduce((n, r) => n + Math.min(r, work), 0) + faultMs;
    const imposedMs = prefills.reduce((n, r) => n + Math.min(r, work), 0);
    return { ownMs, imposedMs };
  }

  #decodeMs(r: TraceRequest): number {
    return (r.outputTokens / this.spec.decodeTokensPerSec) * 1000;
  }

  /** Starts what can start: a load when the head of the queue needs one, else jobs into free slots. */
  #pump(): void {
    if (this.#loading !== null) return;
    this.#advance();
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!;
      const window = this.windowFor(head.request);
      if (this.#loadedCtx !== window) {
        // num_ctx is a load parameter: Ollama waits for the running requests, then reloads.
        if (this.#slots.some((s) => s.job !== null)) break;
        this.loads++;
        for (const s of this.#slots) s.cache = [];
        this.#loadedCtx = null;
        this.#loading = this.#q.after(this.spec.loadMs, () => {
          this.#loading = null;
          this.#loadedCtx = window;
          this.#pump();
        });
        return;
      }
      const slot = this.#pickSlot(head.request.segments);
      if (slot < 0) break;
      this.#queue.shift();
      this.#start(head, slot);
    }
    this.#schedulePrefill();
  }

  /** A free slot: the one whose cache shares the longest prefix, else the least recently used (llama.cpp's slot choice). */
  #pickSlot(segments: readonly Segment[]): number {
    let best = -1;
    let bestShared = -1;
    this.#slots.forEach((s, i) => {
      if (s.job !== null) return;
      const shared = commonPrefix(s.cache, segments);
      if (shared > bestShared || (shared === bestShared && s.lastUsedMs < this.#slots[best]!.lastUsedMs)) {
        best = i;
        bestShared = shared;
      }
    });
    return best;
  }

  #start(job: Job, slot: number): void {
    const s = this.#slots[slot]!;
    const r = job.request;
    job.slot = slot;
    s.job = job;
    const prompt = total(r.segments);
    // At least the last token is always evaluated.
    job.cached = Math.min(commonPrefix(s.cache, r.segments), prompt - 1);
    job.phase = 'prefill';
    job.prefillStartedMs = this.#q.nowMs();
    job.remainingMs = job.degenerate ? 300 : prefillMs(job.cached, prompt, this.spec.prefillTokensPerSec, this.spec.growthTokens);
  }

  #share(): number {
    const active = this.#slots.filter((s) => s.job !== null);
    const prefilling = active.filter((s) => s.job!.phase === 'prefill').length;
    return Math.max(1, prefilling + this.#fleet.decodeShare * (active.length - prefilling));
  }

  /** Moves every running prefill forward to now at the share it had since the last change. */
  #advance(): void {
    const now = this.#q.nowMs();
    const dt = now - this.#lastAdvanceMs;
    this.#lastAdvanceMs = now;
    if (dt <= 0) return;
    const share = this.#share();
    for (const s of this.#slots) if (s.job?.phase === 'prefill') s.job.remainingMs -= dt / share;
  }

  #schedulePrefill(): void {
    if (this.#prefillTimer) this.#prefillTimer.cancelled = true;
    this.#prefillTimer = null;
    const share = this.#share();
    let next = Number.POSITIVE_INFINITY;
    for (const s of this.#slots) if (s.job?.phase === 'prefill') next = Math.min(next, Math.max(PREFILL_EPSILON_MS, s.job.remainingMs * share));
    if (next === Number.POSITIVE_INFINITY) return;
    this.#prefillTimer = this.#q.after(next, () => {
      this.#prefillTimer = null;
      this.#advance();
      for (const s of this.#slots) {
        const j = s.job;
        if (j?.phase !== 'prefill' || j.remainingMs > PREFILL_EPSILON_MS) continue;
        j.phase = 'decode';
        s.cache = j.request.segments;
        const decodeMs = j.degenerate ? 2000 : this.#decodeMs(j.request);
        j.events.firstToken({ cachedTokens: j.cached, promptMs: this.#q.nowMs() - j.prefillStartedMs });
        if (j.phase !== 'decode') continue; // cancelled from the callback
        j.timer = this.#q.after(decodeMs, () => {
          this.#advance();
          s.job = null;
          s.lastUsedMs = this.#q.nowMs();
          j.phase = 'over';
          j.events.done({ decodeMs });
          this.#pump();
          this.#touch();
        });
      }
      this.#schedulePrefill();
    });
  }

  /** keep_alive: an engine idle that long unloads the model, and its caches with it. */
  #touch(): void {
    if (this.inFlight > 0) return;
    const since = (this.#idleSinceMs = this.#q.nowMs());
    this.#q.after(this.#fleet.keepAliveMs, () => {
      if (this.inFlight === 0 && this.#idleSinceMs === since && this.#loading === null) {
        this.#loadedCtx = null;
        for (const s of this.#slots) s.cache = [];
      }
    });
  }
}
