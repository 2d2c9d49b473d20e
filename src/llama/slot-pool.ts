/**
 * Parallel slots: one llama.cpp context sequence each. A request takes the free slot whose
 * cached tokens share the longest prefix with its prompt, so a follow-up turn lands where its
 * conversation is already evaluated. As in current builds of llama.cpp's server, a prefix shorter
 * than a tenth of the prompt (a shared beginning-of-sequence token, a common system line) does
 * not count: the slot idle longest is taken instead, rather than overwriting another
 * conversation's cache for nothing. Ties go to the slot idle longest too. With every slot busy,
 * requests wait in arrival order; none is refused. A request that gives up while waiting
 * (its client hung up) leaves the queue without taking a slot.
 */
import type { LlamaContextSequence, Token } from 'node-llama-cpp';

/** The part of a context sequence the pool needs; tests pass stand-ins. */
export type SlotSequence = Pick<LlamaContextSequence, 'compareContextTokens'>;

/**
 * Below this share of the prompt, a cached prefix is not worth choosing a slot for. It is the
 * default of llama.cpp's `--slot-prompt-similarity` in current builds (common/common.h); the
 * builds of 2024, when the option arrived, defaulted to 0.5, which the simulator keeps (sim/slots.ts).
 */
export const MIN_PREFIX_SHARE = 0.1;

export interface SlotLease<S extends SlotSequence = LlamaContextSequence> {
  readonly index: number;
  readonly sequence: S;
  /** Wall ms spent waiting for the slot. */
  readonly queueMs: number;
  /** Prefix this slot already held when it was chosen. */
  readonly sharedPrefix: number;
  release(): void;
}

interface Slot<S> {
  readonly index: number;
  readonly sequence: S;
  busy: boolean;
  lastUsed: number;
}

interface Waiter<S extends SlotSequence> {
  readonly tokens: readonly Token[];
  readonly since: number;
  resolve(lease: SlotLease<S>): void;
}

export class SlotPool<S extends SlotSequence = LlamaContextSequence> {
  readonly #slots: Slot<S>[];
  readonly #queue: Waiter<S>[] = [];
  #clock = 0;

  constructor(sequences: readonly S[]) {
    if (sequences.length === 0) throw new Error('a slot pool needs at least one sequence');
    this.#slots = sequences.map((sequence, index) => ({ index, sequence, busy: false, lastUsed: 0 }));
  }

  get size(): number {
    return this.#slots.length;
  }

  get busy(): number {
    return this.#slots.filter((s) => s.busy).length;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  /** Resolves with a slot for `tokens`; rejects with an AbortError if `signal` fires first. */
  acquire(tokens: readonly Token[], signal?: AbortSignal): Promise<SlotLease<S>> {
    signal?.throwIfAborted();
    return new Promise<SlotLease<S>>((resolve, reject) => {
      const waiter: Waiter<S> = { tokens, since: performance.now(), resolve };
      const onAbort = (): void => {
        const at = this.#queue.indexOf(waiter);
        if (at < 0) return;
        this.#queue.splice(at, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new DOMException('the request was abandoned while queued', 'AbortError'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiter.resolve = (lease) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(lease);
      };
      this.#queue.push(waiter);
      this.#dispatch();
    });
  }

  /** Hands free slots to waiters, oldest waiter first. */
  #dispatch(): void {
    while (this.#queue.length > 0) {
      const free = this.#slots.filter((s) => !s.busy);
      if (free.length === 0) return;
      const waiter = this.#queue.shift()!;
      const { slot, shared } = this.#best(free, waiter.tokens);
      slot.busy = true;
      let released = false;
      waiter.resolve({
        index: slot.index,
        sequence: slot.sequence,
        queueMs: performance.now() - waiter.since,
        sharedPrefix: shared,
        release: () => {
          if (released) return;
          released = true;
          slot.busy = false;
          slot.lastUsed = ++this.#clock;
          this.#dispatch();
        },
      });
    }
  }

  #best(free: readonly Slot<S>[], tokens: readonly Token[]): { slot: Slot<S>; shared: number } {
    const scored = free.map((slot) => ({ slot, shared: slot.sequence.compareContextTokens(tokens as Token[]).firstDifferentIndex }));
    const worthIt = (shared: number): boolean => shared > 0 && shared >= MIN_PREFIX_SHARE * tokens.length;
    let best = scored[0]!;
    for (const c of scored) {
      const score = worthIt(c.shared) ? c.shared : 0;
      const bestScore = worthIt(best.shared) ? best.shared : 0;
      if (score > bestScore || (score === bestScore && c.slot.lastUsed < best.slot.lastUsed)) best = c;
    }
    return best;
  }
}
