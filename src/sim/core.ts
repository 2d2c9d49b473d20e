/**
 * The simulator's shared state: engine-wide settings, one runner per model, the fault book and
 * the counters /__sim/state reports. Route handlers read and update it; it does no I/O itself.
 */
import { FaultBook } from './faults.js';
import type { Exchange } from './http-io.js';
import { DEFAULT_KEEP_ALIVE_MS, DEFAULT_NUM_CTX, resolveProfile, resolveProfiles, withDefaultTag, type ModelProfile } from './model-profile.js';
import { ModelRuntime } from './slots.js';
import { TimeScale } from './timing.js';
import type { Dialect, SimEngineOptions, SimFault, SimModelOptions, SimModelState, SimState } from './types.js';

/** One route: answers the exchange from the already-read request body. */
export type RouteHandler = (core: SimCore, ex: Exchange, body: Buffer) => Promise<void>;

/** Engines that load their model before they listen; Ollama and Lemonade load on first use. */
const PRELOADING_DIALECTS: ReadonlySet<Dialect> = new Set(['vllm', 'llamacpp', 'omlx']);

export class SimCore {
  readonly dialect: Dialect;
  readonly scale: TimeScale;
  readonly defaultNumCtx: number;
  readonly reportCachedCount: boolean;
  readonly reportCachedTokens: boolean;
  readonly keepAliveMs: number;
  readonly faults = new FaultBook();
  readonly startedAtMs = Date.now();
  readonly #opts: SimEngineOptions;
  #runtimes = new Map<string, ModelRuntime>();
  /** Every request the engine port read, by path as sent: probes and listings included, /__sim excluded. */
  #byPath = new Map<string, number>();
  requests = 0;
  aborted = 0;
  hanging = 0;
  refusing = false;

  constructor(opts: SimEngineOptions) {
    this.dialect = opts.dialect;
    this.scale = new TimeScale(opts.timeScale ?? 1);
    this.defaultNumCtx = opts.defaultNumCtx ?? DEFAULT_NUM_CTX;
    this.reportCachedCount = opts.reportCachedCount ?? false;
    this.reportCachedTokens = opts.reportCachedTokens ?? true;
    this.keepAliveMs = opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.#opts = opts;
    for (const profile of resolveProfiles(opts)) this.#serve(profile);
  }

  /**
   * Serves one more model from now on, as `ollama pull` adds one to a running Ollama; throws when
   * the name is already served (a test that pulls twice has lost track of what the engine holds).
   */
  addModel(model: SimModelOptions): ModelProfile {
    const profile = resolveProfile(model, this.#opts);
    if (this.#runtimes.has(profile.name)) throw new Error(`model ${profile.name} is already served`);
    this.#serve(profile);
    return profile;
  }

  /**
   * Stops serving a model, as `ollama rm` does: it leaves every listing and requests naming it get
   * the dialect's not-found answer; requests already running on it finish. False when not served.
   */
  removeModel(name: string): boolean {
    return this.#runtimes.delete(this.normaliseModel(name));
  }

  #serve(profile: ModelProfile): void {
    const preloadedNumCtx = PRELOADING_DIALECTS.has(this.dialect) ? this.defaultNumCtx : null;
    this.#runtimes.set(
      profile.name,
      new ModelRuntime(profile, this.scale, { preloadedNumCtx, keepAliveMs: this.keepAliveMs, expires: this.dialect === 'ollama' }),
    );
  }

  models(): ModelRuntime[] {
    return [...this.#runtimes.values()];
  }

  /** The runner for a requested model name; Ollama treats a bare name as `:latest`. */
  find(name: string): ModelRuntime | undefined {
    return this.#runtimes.get(this.normaliseModel(name));
  }

  normaliseModel(name: string): string {
    return this.dialect === 'ollama' ? withDefaultTag(name) : name;
  }

  /** Faults name models the way requests do; store them under the served name. */
  normaliseFault(fault: SimFault): SimFault {
    return fault.model === undefined ? fault : { ...fault, model: this.normaliseModel(fault.model) };
  }

  countRequest(runtime: ModelRuntime | undefined): void {
    this.requests++;
    if (runtime !== undefined) runtime.requests++;
  }

  /**
   * Counts one request to `path`, whatever it asked. `requests` counts inference only, and a test
   * that must show the Hub did not read an engine's /api/ps on a request's way has to see the rest.
   */
  countPath(path: string): void {
    this.#byPath.set(path, (this.#byPath.get(path) ?? 0) + 1);
  }

  countAbort(runtime: ModelRuntime | undefined): void {
    this.aborted++;
    if (runtime !== undefined) runtime.aborted++;
  }

  reset(): void {
    this.requests = 0;
    this.aborted = 0;
    this.#byPath.clear();
    for (const r of this.#runtimes.values()) r.reset();
  }

  state(): SimState {
    const perModel: Record<string, SimModelState> = {};
    const loadedNumCtx: Record<string, number | null> = {};
    let inFlight = 0;
    let queued = 0;
    for (const r of this.#runtimes.values()) {
      const loaded = r.loadedNumCtx();
      perModel[r.profile.name] = {
        inFlight: r.inFlight,
        queued: r.queued,
        slots: r.profile.slots,
        requests: r.requests,
        aborted: r.aborted,
        loads: r.loads,
        loadedNumCtx: loaded,
        slotCachedTokens: r.slotCachedTokens(),
      };
      loadedNumCtx[r.profile.name] = loaded;
      inFlight += r.inFlight;
      queued += r.queued;
    }
    return {
      dialect: this.dialect,
      inFlight,
      queued,
      requests: this.requests,
      requestsByPath: Object.fromEntries(this.#byPath),
      aborted: this.aborted,
      hanging: this.hanging,
      refusing: this.refusing,
      perModel,
      loadedNumCtx,
      faults: this.faults.list(),
    };
  }
}
