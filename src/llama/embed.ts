/**
 * Embeddings from the model's own hidden state (llama.cpp's embedding context, last-token
 * pooling for a llama model), one input at a time on the engine's embedding sequence. Vectors
 * are L2-normalised as Ollama's /api/embed and /v1/embeddings return them.
 */
import type { Token } from 'node-llama-cpp';
import type { LlamaCore } from './core.js';

export interface EmbedOutcome {
  readonly vectors: number[][];
  /** Tokens read, beginning-of-sequence tokens included. */
  readonly promptTokens: number;
  readonly prefillMs: number;
}

export class EmbedInputTooLong extends Error {
  constructor() {
    super('the input length exceeds the context length');
    this.name = 'EmbedInputTooLong';
  }
}

export function normalize(v: readonly number[]): number[] {
  const norm = Math.hypot(...v);
  return norm === 0 ? [...v] : v.map((x) => x / norm);
}

/**
 * Embeds each text. An input longer than the context is cut to fit when `truncate` (Ollama's
 * default), else refused with EmbedInputTooLong.
 */
export async function embedTexts(
  core: LlamaCore,
  route: string,
  texts: readonly string[],
  opts: { truncate: boolean; normalize: boolean; dimensions?: number },
): Promise<EmbedOutcome> {
  const { model, slotCtx } = core.runtime;
  const inputs = texts.map((t) => model.tokenize(t, false));
  // Room for the beginning token llama.cpp adds, and one spare as its embedding context wants.
  const room = slotCtx - 2;
  if (!opts.truncate && inputs.some((t) => t.length > room)) throw new EmbedInputTooLong();
  const id = core.log.begin();
  let outcome: { vectors: number[][]; promptTokens: number; started: number; ended: number };
  try {
    outcome = await core.exclusiveEmbedding(() =>
      embedEach(
        core,
        inputs.map((t) => t.slice(0, room)),
        opts,
      ),
    );
  } catch (err) {
    core.log.abandon();
    throw err;
  }
  const { vectors, promptTokens, started, ended } = outcome;
  core.log.finish({
    id,
    route,
    kind: 'embedding',
    slot: null,
    outcome: 'stop',
    promptTokens,
    cachedTokens: 0,
    evalCount: 0,
    queueMs: 0,
    prefillMs: ended - started,
    decodeMs: 0,
    totalMs: ended - started,
    slotAt: performance.timeOrigin + started,
    endedAt: performance.timeOrigin + ended,
  });
  return { vectors, promptTokens, prefillMs: ended - started };
}

async function embedEach(core: LlamaCore, inputs: readonly Token[][], opts: { normalize: boolean; dimensions?: number }) {
  const embedding = core.runtime.embedding;
  const started = performance.now();
  const vectors: number[][] = [];
  let promptTokens = 0;
  for (const tokens of inputs) {
    promptTokens += embedding.calculateInputLength([...tokens]);
    const { vector } = await embedding.getEmbeddingFor([...tokens]);
    const v = opts.dimensions !== undefined && opts.dimensions > 0 ? vector.slice(0, opts.dimensions) : [...vector];
    vectors.push(opts.normalize ? normalize(v) : v);
  }
  return { vectors, promptTokens, started, ended: performance.now() };
}
