/**
 * Full garbage collections when the Hub goes quiet after a burst of work: one, and a few more
 * while V8 still holds heap pages it emptied; before each, node:http's pool of idle parsers is
 * emptied (http-parser-pool.ts).
 *
 * V8 collects when a process allocates. A Hub that has just relayed a thousand streams and then
 * sits idle allocates next to nothing, so the burst's garbage (tens of MB of heap, and the array
 * buffers its sockets read into) stays until the next burst, and RSS with it. Measured with
 * bench/soak on 2026-12-03: 60 s after 1,000 streams ended the Hub still held 75 MB of heap and
 * 73 MB of array buffers, almost all of it garbage, RSS 168% over idle; with these collections
 * the heap was back to its idle size and RSS 92% over (the rest is the C allocator's).
 *
 * Nothing is collected while an inference request is in flight or one was placed since the last
 * check, so the pause (tens of ms for a heap of that size) falls between bursts. Other requests
 * (peers' health polls, the dashboard) do not hold it off: they are small and short, a pool of 50
 * peers polls this Hub more than once a second, and a poll answered 30 ms late costs nothing.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the Hub looks for a quiet moment. */
export const IDLE_COLLECTION_CHECK_MS = 5_000;

/** Garbage (or idle heap pages) below this is not worth a pause. */
export const IDLE_COLLECTION_MIN_BYTES = 16 * 1024 * 1024;

/**
 * Collections in one quiet spell at most. V8 gives the heap pages one collection emptied back
 * over the next few (in the soak, heapTotal stayed at 72 MB after one collection, and fell to
 * 24 MB within four at 2 s intervals), so a spell may run a few more while pages sit unused; the
 * bound keeps a heap that never shrinks from being collected every few seconds for ever.
 */
export const IDLE_COLLECTIONS_PER_SPELL_MAX = 4;

export interface HeapReading {
  /** Heap used plus array buffers, bytes. */
  readonly heldBytes: number;
  /** Heap V8 holds but does not use (heapTotal - heapUsed), bytes. */
  readonly idleHeapBytes: number;
}

export interface IdleCheck extends HeapReading {
  /** Inference requests in flight now, in either direction. */
  readonly inFlight: number;
  /** Inference requests placed since the previous check. */
  readonly placedSinceLastCheck: number;
  /** heldBytes right after the last collection (or at start), or the lowest any check read since, if lower. */
  readonly baselineBytes: number;
  /** Collections since the last request was placed. */
  readonly collectionsThisSpell: number;
}

/**
 * Whether this check should collect: the Hub is quiet, and either holds much more than after the
 * last collection (a burst's garbage) or, after a collection in this spell, still holds many
 * heap pages it does not use.
 */
export function shouldCollect(c: IdleCheck): boolean {
  if (c.inFlight > 0 || c.placedSinceLastCheck > 0 || c.collectionsThisSpell >= IDLE_COLLECTIONS_PER_SPELL_MAX) return false;
  if (c.heldBytes - c.baselineBytes >= IDLE_COLLECTION_MIN_BYTES) return true;
  return c.collectionsThisSpell > 0 && c.idleHeapBytes >= IDLE_COLLECTION_MIN_BYTES;
}

export function readHeap(): HeapReading {
  const m = process.memoryUsage();
  return { heldBytes: m.heapUsed + m.arrayBuffers, idleHeapBytes: m.heapTotal - m.heapUsed };
}

/**
 * V8's full collection as a function: the one --expose-gc gives, or the same one obtained at run
 * time (V8 adds gc() to contexts created after the flag is set; only this one new context is).
 * null when this runtime offers neither.
 */
export function fullCollection(): (() => void) | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  }
}

export interface IdleCollectorDeps {
  readonly inFlight: () => number;
  /** Inference requests placed since start; the collector compares successive readings. */
  readonly placed: () => number;
  readonly readHeap: () => HeapReading;
  /** Obtained on the first collection, so a Hub that is never busy never makes the extra context. */
  readonly collector: () => (() => void) | null;
  /**
   * Closes the HTTP parsers node:http pooled for connections the burst opened (http-parser-pool.ts),
   * run before each collection so their JS halves are collected with it; how many it closed, null
   * when the runtime has no such pool.
   */
  readonly closePooledParsers: () => number | null;
}

/** What one collection did, for the log. */
export interface Collected {
  readonly before: HeapReading;
  readonly after: HeapReading;
  /** 1 for the first collection of a quiet spell, then 2, 3... */
  readonly inSpell: number;
  /** Pooled HTTP parsers closed before it; null when this runtime has no pool to empty. */
  readonly parsersClosed: number | null;
}

export class IdleCollector {
  readonly #deps: IdleCollectorDeps;
  #baselineBytes: number;
  #placedAtLastCheck: number;
  #collectionsThisSpell = 0;
  #gc: (() => void) | null | undefined;

  constructor(deps: IdleCollectorDeps) {
    this.#deps = deps;
    this.#baselineBytes = deps.readHeap().heldBytes;
    this.#placedAtLastCheck = deps.placed();
  }

  /** One check; what it collected, or null when it did not (not quiet, nothing worth it, or no collector). */
  check(): Collected | null {
    const placed = this.#deps.placed();
    const placedSinceLastCheck = placed - this.#placedAtLastCheck;
    this.#placedAtLastCheck = placed;
    if (placedSinceLastCheck > 0) this.#collectionsThisSpell = 0;
    const before = this.#deps.readHeap();
    // V8 collects on its own too (the start-up's garbage, part of a burst): the heap that fell
    // below the baseline shows how little is live, and a burst's garbage is measured from there.
    this.#baselineBytes = Math.min(this.#baselineBytes, before.heldBytes);
    const check: IdleCheck = {
      ...before,
      inFlight: this.#deps.inFlight(),
      placedSinceLastCheck,
      baselineBytes: this.#baselineBytes,
      collectionsThisSpell: this.#collectionsThisSpell,
    };
    if (!shouldCollect(check)) return null;
    if (this.#gc === undefined) this.#gc = this.#deps.collector();
    if (this.#gc === null) return null;
    const parsersClosed = this.#deps.closePooledParsers();
    this.#gc();
    this.#collectionsThisSpell += 1;
    const after = this.#deps.readHeap();
    this.#baselineBytes = after.heldBytes;
    return { before, after, inSpell: this.#collectionsThisSpell, parsersClosed };
  }
}
