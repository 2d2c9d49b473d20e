/**
 * One model's runner: a fixed number of slots, a FIFO queue in front of them, the context window
 * the model is loaded at, and a prefix cache per slot.
 *
 * Requests are never rejected; they wait in arrival order. A request that needs another window
 * than the loaded one waits at the head of the queue until the running requests finish, then
 * reloads the model (clearing every slot's cache), which is how Ollama's scheduler treats a
 * changed num_ctx. Requests behind it wait too, even ones that would fit the old window, because
 * the queue is served strictly in order.
 */
import { PrefixCache } from './prefix-cache.js';
import type { ModelProfile } from './model-profile.js';
import type { TimeScale } from './timing.js';
import { countTokens } from './tokens.js';

/**
 * Share of a prompt a slot's cache must hold to be chosen for it over the least recently used
 * slot: the default of llama.cpp's `--slot-prompt-similarity` from its arrival in 2024; current
 * llama.cpp builds default to 0.1, which the real-engine slot pool follows (llama/slot-pool.ts).
 */
const SLOT_SIMILARITY_MIN = 0.5;

export interface SlotRequest {
  /** Context window the request runs at. */
  numCtx: number;
  /** Prompt text, used to pick the slot whose cache shares the longest prefix with it. */
  prompt: string;
  signal: AbortSignal;
}

export interface SlotLease {
  readonly slotIndex: number;
  /** Whole prompt tokens the chosen slot already holds. */
  readonly cachedTokens: number;
  /** Simulated ms spent waiting in the queue. */
  readonly queueSimMs: number;
  /** Simulated ms spent on a model load: this request's own, or the part of another's it waited out. */
  readonly loadSimMs: number;
  /** True when this request itself started a load or reload. */
  readonly loaded: boolean;
  /** Frees the slot and says what its prefix cache now holds. */
  release(cache: CacheUpdate, keepAliveMs?: number): void;
}

/**
 * `{ text }`: the slot processed this text (prompt plus answer). `truncate`: the request stopped
 * part-way, so only what it shared with the old contents is still valid. `keep`: the request did
 * not touch the cache (embeddings, load calls).
 */
export type CacheUpdate = { text: string } | 'truncate' | 'keep';

interface Slot {
  readonly index: number;
  readonly cache: PrefixCache;
  busy: boolean;
  lastUsed: number;
}

interface Waiter {
  readonly req: SlotRequest;
  readonly resolve: (grant: { slot: Slot; loadedHere: boolean }) => void;
}

export interface RuntimeOptions {
  /** Window the model is loaded at on start, or null when it loads on first use. */
  preloadedNumCtx: number | null;
  /** Default keep-alive in simulated ms; negative keeps the model loaded forever. */
  keepAliveMs: number;
  /** Whether idle models unload when their keep-alive runs out (Ollama does; the others keep what they loaded). */
  expires: boolean;
}

export class ModelRuntime {
  readonly profile: ModelProfile;
  #scale: TimeScale;
  #opts: RuntimeOptions;
  #slots: Slot[];
  #queue: Waiter[] = [];
  #running = 0;
  #useCounter = 0;
  #loadedNumCtx: number | null;
  #loading: Promise<void> | null = null;
  #expiresAtMs = Number.POSITIVE_INFINITY;
  #lastUseMs = 0;
  loads = 0;
  requests = 0;
  aborted = 0;

  constructor(profile: ModelProfile, scale: TimeScale, opts: RuntimeOptions) {
    this.profile = profile;
    this.#scale = scale;
    this.#opts = opts;
    this.#loadedNumCtx = opts.preloadedNumCtx;
    this.#slots = Array.from({ length: profile.slots }, (_, index) => ({ index, cache: new PrefixCache(), busy: false, lastUsed: 0 }));
  }

  get inFlight(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queue.length;
  }

  get lastUseMs(): number {
    return this.#lastUseMs;
  }

  /** The window the model is loaded at, or null when it is not loaded (after expiring idle models). */
  loadedNumCtx(): number | null {
    this.#expireIfIdle();
    return this.#loadedNumCtx;
  }

  expiresAtMs(): number {
    return this.#expiresAtMs;
  }

  slotCachedTokens(): number[] {
    return this.#slots.map((s) => s.cache.tokens);
  }

  slotBusy(): boolean[] {
    return this.#slots.map((s) => s.busy);
  }

  /** Waits for a slot at the request's window, loading or reloading the model when needed. */
  async acquire(req: SlotRequest): Promise<SlotLease> {
    req.signal.throwIfAborted();
    const enqueuedAt = performance.now();
    const grant = await new Promise<{ slot: Slot; loadedHere: boolean }>((resolve, reject) => {
      const onAbort = (): void => {
        const at = this.#queue.indexOf(waiter);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(req.signal.reason);
        this.#dispatch();
      };
      const waiter: Waiter = {
        req,
        resolve: (g) => {
          req.signal.removeEventListener('abort', onAbort);
          resolve(g);
        },
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      this.#dispatch();
    });
    const queueSimMs = this.#scale.simMs(performance.now() - enqueuedAt);
    const { slot, loadedHere } = grant;
    let loadSimMs = 0;
    if (this.#loading !== null) {
      const loadStart = performance.now();
      try {
        await abortable(this.#loading, req.signal);
      } catch (err) {
        this.#free(slot, 'truncate', req.prompt);
        throw err;
      }
      loadSimMs = loadedHere ? this.profile.loadMs : this.#scale.simMs(performance.now() - loadStart);
    }
    const cachedTokens = slot.cache.matchTokens(req.prompt);
    let released = false;
    return {
      slotIndex: slot.index,
      cachedTokens,
      queueSimMs,
      loadSimMs,
      loaded: loadedHere,
      release: (cache, keepAliveMs) => {
        if (released) return;
        released = true;
        this.#free(slot, cache, req.prompt, keepAliveMs);
      },
    };
  }

  /** Ollama's unload call: drop the model now if idle, else as soon as it becomes idle. */
  unload(): void {
    this.#expiresAtMs = Date.now();
    this.#expireIfIdle();
  }

  /** Forget caches and counters; unload back to the start state when idle. */
  reset(): void {
    for (const s of this.#slots) s.cache.clear();
    this.loads = 0;
    this.requests = 0;
    this.aborted = 0;
    if (this.#running === 0 && this.#queue.length === 0) {
      this.#loadedNumCtx = this.#opts.preloadedNumCtx;
      this.#expiresAtMs = Number.POSITIVE_INFINITY;
    }
  }

  #free(slot: Slot, cache: CacheUpdate, prompt: string, keepAliveMs?: number): void {
    slot.busy = false;
    slot.lastUsed = ++this.#useCounter;
    if (cache === 'truncate') slot.cache.truncateToSharedWith(prompt);
    else if (cache !== 'keep') slot.cache.remember(cache.text);
    this.#running--;
    this.#lastUseMs = Date.now();
    this.#touchKeepAlive(keepAliveMs ?? this.#opts.keepAliveMs);
    this.#dispatch();
  }

  #touchKeepAlive(keepAliveMs: number): void {
    if (!this.#opts.expires) return;
    // With time stopped (scale 0) a positive keep-alive never runs out.
    const forever = keepAliveMs < 0 || (keepAliveMs > 0 && this.#scale.factor === 0);
    this.#expiresAtMs = forever ? Number.POSITIVE_INFINITY : Date.now() + this.#scale.wallMs(keepAliveMs);
    this.#expireIfIdle();
  }

  #expireIfIdle(): void {
    if (this.#running > 0 || this.#queue.length > 0 || this.#loadedNumCtx === null) return;
    if (Date.now() < this.#expiresAtMs) return;
    this.#loadedNumCtx = null;
    for (const s of this.#slots) s.cache.clear();
  }

  #dispatch(): void {
    this.#expireIfIdle();
    for (;;) {
      const head = this.#queue[0];
      if (head === undefined) return;
      let loadedHere = false;
      if (this.#loadedNumCtx !== head.req.numCtx) {
        // A reload must not pull the model from under running requests.
        if (this.#running > 0) return;
        this.#startLoad(head.req.numCtx);
        loadedHere = true;
      }
      const slot = this.#pickSlot(head.req.prompt);
      if (slot === undefined) return;
      this.#queue.shift();
      slot.busy = true;
      this.#running++;
      this.#lastUseMs = Date.now();
      if (this.#opts.expires) this.#expiresAtMs = Number.POSITIVE_INFINITY;
      head.resolve({ slot, loadedHere });
    }
  }

  #startLoad(numCtx: number): void {
    this.#loadedNumCtx = numCtx;
    this.loads++;
    for (const s of this.#slots) s.cache.clear();
    const loading = this.#scale.sleep(this.profile.loadMs).finally(() => {
      if (this.#loading === loading) this.#loading = null;
    });
    this.#loading = loading;
  }

  /**
   * The free slot sharing the longest prefix with the prompt, as llama.cpp picks. A slot only
   * counts as a match when it holds at least half the prompt (SLOT_SIMILARITY_MIN, see there),
   * so a shared template header alone does not evict another conversation; otherwise, and on
   * ties, the least recently used slot wins.
   */
  #pickSlot(prompt: string): Slot | undefined {
    const promptTokens = countTokens(prompt);
    let best: Slot | undefined;
    let bestMatch = -1;
    for (const s of this.#slots) {
      if (s.busy) continue;
      const shared = s.cache.matchTokens(prompt);
      const match = promptTokens > 0 && shared / promptTokens >= SLOT_SIMILARITY_MIN ? shared : 0;
      if (match > bestMatch || (match === bestMatch && best !== undefined && s.lastUsed < best.lastUsed)) {
        best = s;
        bestMatch = match;
      }
    }
    return best;
  }
}

async function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return await new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}
