/**
 * Loading llama.cpp through node-llama-cpp: the prebuilt CPU binary, one model, one context with
 * a sequence per slot, and a separate one-sequence context for embeddings.
 *
 * Settings that matter on a small CPU machine:
 * - gpu: false and build: 'never' with skipDownload: only the prebuilt linux-x64 binary from
 *   @node-llama-cpp/linux-x64 is used; nothing is built or fetched, and a missing binary fails
 *   at once instead of starting a compile.
 * - maxThreads: 1 per engine. node-llama-cpp otherwise sizes its thread pool to at least four,
 *   more than a two-core machine has, and the threads then fight each other and the Hub.
 *   Each engine gets its own Llama instance, so two engines in one process do not share (and
 *   queue on) one thread budget, as two nodes would not.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getLlama, LlamaLogLevel, TokenBias, type Llama, type LlamaContext, type LlamaEmbeddingContext, type LlamaModel, type Token } from 'node-llama-cpp';
import { ensureModel, type GeneratedModel, type ModelSize } from './tiny-model.js';
import { bannedTokenIds, buildVocabulary } from './vocab.js';

export interface RuntimeOptions {
  size: ModelSize;
  /** Parallel generations: one context sequence each. */
  slots: number;
  /** Context per slot, in tokens. */
  ctx: number;
  /** Where generated models are cached (default: the OS temp dir). */
  modelDir?: string;
  /** llama.cpp threads for this engine (default 1). */
  threads?: number;
}

export interface LlamaRuntime {
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly embedding: LlamaEmbeddingContext;
  readonly generated: GeneratedModel;
  /** Tokens each slot can hold, as the context reports it (llama.cpp may round up). */
  readonly slotCtx: number;
  readonly fileBytes: number;
  /** sha256 of the model file, hex. */
  readonly digest: string;
  /** Wall ms from the start of loading to a usable context. */
  readonly loadMs: number;
  /** Byte, control (but not end-of-generation) and unused tokens biased to never be sampled. */
  readonly banned: TokenBias;
  /** The same plus the end-of-generation tokens, for requests with ignore_eos. */
  readonly bannedWithEnds: TokenBias;
  dispose(): Promise<void>;
}

/**
 * TokenBias.set() skips end-of-generation tokens on purpose (node-llama-cpp documents that a
 * "never" on them is ignored), but ignore_eos needs exactly that, as llama.cpp's own ignore_eos
 * puts -inf on them. The bias map behind set() is written directly; node-llama-cpp is pinned to
 * one version and the engine tests fail if this stops working.
 */
function banEndToken(bias: TokenBias, id: number): void {
  const map = (bias as unknown as { _biases?: unknown })._biases;
  if (!(map instanceof Map)) throw new Error('this node-llama-cpp version keeps token biases elsewhere: ignore_eos cannot be supported');
  map.set(id, -Infinity);
}

export async function loadRuntime(opts: RuntimeOptions): Promise<LlamaRuntime> {
  const started = performance.now();
  const generated = ensureModel(opts.size, opts.modelDir);
  const bytes = readFileSync(generated.path);
  const digest = createHash('sha256').update(bytes).digest('hex');
  const llama = await getLlama({
    gpu: false,
    build: 'never',
    skipDownload: true,
    usePrebuiltBinaries: true,
    progressLogs: false,
    maxThreads: opts.threads ?? 1,
    logLevel: LlamaLogLevel.error,
  });
  const model = await llama.loadModel({ modelPath: generated.path, gpuLayers: 0 });
  const context = await model.createContext({
    contextSize: opts.ctx,
    sequences: opts.slots,
    // Flash attention: on this CPU build it reads a long prompt two to three times faster.
    flashAttention: true,
    // No padding: a context of exactly --ctx tokens per slot, as asked.
    failedCreationRemedy: false,
  });
  const embedding = await model.createEmbeddingContext({ contextSize: opts.ctx, threads: opts.threads ?? 1 });
  const vocab = buildVocabulary();
  const banned = new TokenBias(model.tokenizer);
  const bannedWithEnds = new TokenBias(model.tokenizer);
  for (const id of bannedTokenIds(vocab)) {
    banned.set(id as Token, 'never');
    bannedWithEnds.set(id as Token, 'never');
  }
  for (let id = 0; id < vocab.tokens.length; id++) if (model.isEogToken(id as Token)) banEndToken(bannedWithEnds, id);
  return {
    llama,
    model,
    context,
    embedding,
    generated,
    slotCtx: context.contextSize,
    fileBytes: bytes.length,
    digest,
    loadMs: performance.now() - started,
    banned,
    bannedWithEnds,
    async dispose() {
      await embedding.dispose();
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
