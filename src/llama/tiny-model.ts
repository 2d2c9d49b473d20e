/**
 * Deterministic llama-architecture models with random weights, generated on first use and kept
 * in a cache directory. Nothing is downloaded: the weights come from a seeded generator, so a
 * model's file name carries a hash of its recipe (sizes, seed, generator version), and a recipe
 * that changes gets a new file instead of a stale one.
 *
 * The text such a model writes is noise. What is real is everything around it: llama.cpp loads
 * the file, tokenizes with the SentencePiece vocabulary, evaluates every layer, keeps a KV cache
 * and samples; the time all that takes grows with the model and the context, as on a CPU node.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { GgmlType, writeGguf, type GgufTensor, type GgufValue } from './gguf-writer.js';
import { gaussian, mulberry32 } from './prng.js';
import { BOS_ID, buildVocabulary, CHATML_TEMPLATE, EOS_ID, IM_END_ID, UNK_ID, VOCAB_SIZE } from './vocab.js';

export type ModelSize = 'tiny' | 'medium';
export const MODEL_SIZES: readonly ModelSize[] = ['tiny', 'medium'];

export interface TinyModelSpec {
  readonly size: ModelSize;
  readonly layers: number;
  readonly width: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly feedForward: number;
  /** The trained context the file claims; a random model has no real limit, RoPE runs at any position. */
  readonly contextLength: number;
  readonly seed: number;
}

export const MODEL_SPECS: Readonly<Record<ModelSize, TinyModelSpec>> = {
  tiny: { size: 'tiny', layers: 2, width: 128, heads: 4, kvHeads: 2, feedForward: 384, contextLength: 32768, seed: 0x5eed_0001 },
  medium: { size: 'medium', layers: 4, width: 256, heads: 8, kvHeads: 4, feedForward: 768, contextLength: 32768, seed: 0x5eed_0002 },
};

/** Bump when the bytes a spec produces change for any reason (writer, vocabulary, weight scheme). */
const GENERATOR_VERSION = 1;

export const DEFAULT_MODEL_DIR = join(tmpdir(), 'cihub-models');

/** The Ollama-style name an engine serves a generated model under. */
export function modelName(size: ModelSize): string {
  return `cihub-${size}:latest`;
}

export function recipeHash(spec: TinyModelSpec): string {
  return createHash('sha256')
    .update(JSON.stringify({ generator: GENERATOR_VERSION, spec }))
    .digest('hex')
    .slice(0, 16);
}

export function parameterCount(spec: TinyModelSpec): number {
  const headDim = spec.width / spec.heads;
  const kvDim = headDim * spec.kvHeads;
  const perLayer = spec.width * (spec.width * 2 + kvDim * 2) + 3 * spec.width * spec.feedForward + 2 * spec.width;
  return 2 * VOCAB_SIZE * spec.width + spec.layers * perLayer + spec.width;
}

function metadata(spec: TinyModelSpec): Array<readonly [string, GgufValue]> {
  const vocab = buildVocabulary();
  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  return [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: `cihub-${spec.size}` }],
    ['general.description', { type: 'string', value: 'random weights from a seeded generator; its text is noise' }],
    ['general.file_type', u32(1)], // LLAMA_FTYPE_MOSTLY_F16
    ['llama.context_length', u32(spec.contextLength)],
    ['llama.embedding_length', u32(spec.width)],
    ['llama.block_count', u32(spec.layers)],
    ['llama.feed_forward_length', u32(spec.feedForward)],
    ['llama.attention.head_count', u32(spec.heads)],
    ['llama.attention.head_count_kv', u32(spec.kvHeads)],
    ['llama.rope.dimension_count', u32(spec.width / spec.heads)],
    ['llama.rope.freq_base', { type: 'f32', value: 10000 }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.vocab_size', u32(VOCAB_SIZE)],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'array', of: 'string', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'array', of: 'f32', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'array', of: 'i32', value: vocab.types }],
    ['tokenizer.ggml.bos_token_id', u32(BOS_ID)],
    ['tokenizer.ggml.eos_token_id', u32(EOS_ID)],
    ['tokenizer.ggml.eot_token_id', u32(IM_END_ID)],
    ['tokenizer.ggml.unknown_token_id', u32(UNK_ID)],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
    ['tokenizer.ggml.add_eos_token', { type: 'bool', value: false }],
    // Without a space prefix, each piece detokenizes to the same text alone as in a sequence.
    ['tokenizer.ggml.add_space_prefix', { type: 'bool', value: false }],
    ['tokenizer.chat_template', { type: 'string', value: CHATML_TEMPLATE }],
  ];
}

function tensors(spec: TinyModelSpec): GgufTensor[] {
  const normal = (std: number) => gaussian(mulberry32(spec.seed), std);
  const draw = normal(1);
  const matrix = (name: string, cols: number, rows: number, std: number): GgufTensor => {
    const data = new Float32Array(cols * rows);
    for (let i = 0; i < data.length; i++) data[i] = draw() * std;
    return { name, dims: [cols, rows], type: GgmlType.F16, data };
  };
  const ones = (name: string, n: number): GgufTensor => ({ name, dims: [n], type: GgmlType.F32, data: new Float32Array(n).fill(1) });
  const w = spec.width;
  const kvDim = (w / spec.heads) * spec.kvHeads;
  const ff = spec.feedForward;
  // Unit-scale activations: each projection divides by the square root of its input width.
  const out: GgufTensor[] = [matrix('token_embd.weight', w, VOCAB_SIZE, 1)];
  for (let l = 0; l < spec.layers; l++) {
    out.push(
      ones(`blk.${l}.attn_norm.weight`, w),
      matrix(`blk.${l}.attn_q.weight`, w, w, 1 / Math.sqrt(w)),
      matrix(`blk.${l}.attn_k.weight`, w, kvDim, 1 / Math.sqrt(w)),
      matrix(`blk.${l}.attn_v.weight`, w, kvDim, 1 / Math.sqrt(w)),
      matrix(`blk.${l}.attn_output.weight`, w, w, 1 / Math.sqrt(w)),
      ones(`blk.${l}.ffn_norm.weight`, w),
      matrix(`blk.${l}.ffn_gate.weight`, w, ff, 1 / Math.sqrt(w)),
      matrix(`blk.${l}.ffn_up.weight`, w, ff, 1 / Math.sqrt(w)),
      matrix(`blk.${l}.ffn_down.weight`, ff, w, 1 / Math.sqrt(ff)),
    );
  }
  // Logits with a standard deviation near 2: peaked enough that sampling is not flat noise.
  out.push(ones('output_norm.weight', w), matrix('output.weight', w, VOCAB_SIZE, 2 / Math.sqrt(w)));
  return out;
}

/** The whole GGUF file for a size, in memory. */
export function buildModelFile(size: ModelSize): Buffer {
  const spec = MODEL_SPECS[size];
  return writeGguf({ metadata: metadata(spec), tensors: tensors(spec) });
}

export interface GeneratedModel {
  readonly size: ModelSize;
  readonly name: string;
  readonly path: string;
  readonly spec: TinyModelSpec;
  /** Whether this call wrote the file (false: it was already in the cache). */
  readonly created: boolean;
}

/** Where the model file for `size` is cached (its name carries the recipe's hash, so a new recipe is a new file). */
export function modelPath(size: ModelSize, dir: string = DEFAULT_MODEL_DIR): string {
  return join(dir, `cihub-${size}-${recipeHash(MODEL_SPECS[size])}.gguf`);
}

/**
 * The model file for `size`, generated into `dir` if it is not there yet. The write is atomic
 * (util/atomic-write), so processes racing to create it never see a partial file, nor does a
 * run after a power cut.
 */
export function ensureModel(size: ModelSize, dir: string = DEFAULT_MODEL_DIR): GeneratedModel {
  const spec = MODEL_SPECS[size];
  const path = modelPath(size, dir);
  const base = { size, name: modelName(size), path, spec };
  if (existsSync(path)) return { ...base, created: false };
  mkdirSync(dir, { recursive: true });
  // An unsynced write is ignored: the file itself was synced before its rename, so a power cut can
  // only lose the name, and a missing model file is generated again on the next run.
  writeFileAtomic(path, buildModelFile(size), { mode: 0o644 });
  return { ...base, created: true };
}
