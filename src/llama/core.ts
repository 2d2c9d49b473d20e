/**
 * One engine's state: the loaded runtime, its slots, its request log and the name it serves the
 * model under. Route handlers get this and nothing else.
 */
import type { LlamaContextSequence } from 'node-llama-cpp';
import { RequestLog } from './request-log.js';
import type { LlamaRuntime } from './runtime.js';
import { SlotPool } from './slot-pool.js';

export class LlamaCore {
  readonly runtime: LlamaRuntime;
  readonly pool: SlotPool<LlamaContextSequence>;
  readonly log = new RequestLog();
  /** The served name, with its tag (e.g. cihub-tiny:latest). */
  readonly modelName: string;
  /** When the model finished loading (epoch ms), reported as its modification time too. */
  readonly loadedAt: number;
  #embedLock: Promise<void> = Promise.resolve();

  constructor(runtime: LlamaRuntime) {
    this.runtime = runtime;
    this.modelName = runtime.generated.name;
    this.loadedAt = Date.now();
    const sequences: LlamaContextSequence[] = [];
    for (let i = 0; i < runtime.context.totalSequences; i++) {
      // No context shift: a full sequence must never silently drop its beginning. Generation is
      // bounded to fit (see generation.ts), so reaching this is a bug worth an error.
      sequences.push(
        runtime.context.getSequence({
          contextShift: {
            strategy: () => {
              throw new Error('the slot context is full');
            },
          },
        }),
      );
    }
    this.pool = new SlotPool(sequences);
  }

  /** Whether `name` (with or without a tag) is the model this engine serves. */
  serves(name: string): boolean {
    const tagged = name.includes(':') ? name : `${name}:latest`;
    return tagged === this.modelName;
  }

  /** Runs embedding work one at a time: the embedding context has a single sequence. */
  async exclusiveEmbedding<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.#embedLock;
    let done!: () => void;
    this.#embedLock = new Promise<void>((resolve) => (done = resolve));
    await previous;
    try {
      return await work();
    } finally {
      done();
    }
  }
}
