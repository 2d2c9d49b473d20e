/**
 * A model as the simulator serves it: the caller's options with every default filled in, plus the
 * metadata engines publish about a model (size, digest, family, capabilities).
 */
import { createHash } from 'node:crypto';
import type { SimEngineOptions, SimModelOptions } from './types.js';

export const DEFAULT_PREFILL_TPS = 2000;
export const DEFAULT_DECODE_TPS = 50;
export const DEFAULT_LOAD_MS = 500;
export const DEFAULT_SLOTS = 1;
export const DEFAULT_NUM_CTX = 4096;
export const DEFAULT_ANSWER_TOKENS = 12;
export const DEFAULT_CONTEXT_LENGTH = 131072;
/** Ollama's OLLAMA_KEEP_ALIVE default, five minutes. */
export const DEFAULT_KEEP_ALIVE_MS = 5 * 60_000;
/** Q4_K_M stores roughly 4.8 bits per weight. */
const BYTES_PER_PARAM_Q4 = 0.6;
/** KV cache cost per token of window, per billion parameters (rough, for plausible /api/ps sizes). */
const KV_BYTES_PER_TOKEN_PER_BPARAM = 16_384;
/** A fixed modification time keeps /api/tags and /v1/models byte-stable across runs. */
export const MODEL_MODIFIED_AT = '2026-01-01T10:00:00.5+01:00';
export const MODEL_MODIFIED_UNIX_S = Math.floor(Date.parse(MODEL_MODIFIED_AT) / 1000);

export interface ModelProfile {
  readonly name: string;
  readonly prefillTps: number;
  readonly prefillSlowdownPerKTok: number;
  readonly decodeTps: number;
  readonly slots: number;
  readonly loadMs: number;
  readonly parameterSize: string;
  readonly paramsBillions: number;
  readonly family: string;
  readonly capabilities: readonly string[];
  readonly contextLength: number;
  readonly vramFraction: number;
  readonly answerTokens: number;
  readonly isEmbedding: boolean;
  readonly weightsBytes: number;
  readonly digest: string;
}

export function resolveProfiles(opts: SimEngineOptions): ModelProfile[] {
  if (opts.models.length === 0) throw new Error('the simulator needs at least one model');
  const profiles = opts.models.map((entry) => resolveProfile(typeof entry === 'string' ? { name: entry } : entry, opts));
  const seen = new Set<string>();
  for (const p of profiles) {
    if (seen.has(p.name)) throw new Error(`model ${p.name} is listed twice`);
    seen.add(p.name);
  }
  return profiles;
}

/** One model's profile, every option it leaves out taken from the engine's, then the defaults. */
export function resolveProfile(m: SimModelOptions, e: SimEngineOptions): ModelProfile {
  const name = e.dialect === 'ollama' ? withDefaultTag(m.name) : m.name;
  const capabilities = m.capabilities ?? (name.toLowerCase().includes('embed') ? ['embedding'] : ['completion', 'tools']);
  // An embedding model is one that can embed and cannot complete; it refuses chat and generate.
  const isEmbedding = capabilities.includes('embedding') && !capabilities.includes('completion');
  const parameterSize = m.parameterSize ?? guessParameterSize(name);
  const paramsBillions = parseParameterSize(parameterSize);
  // Ollama forces one slot for embedding runners, whatever OLLAMA_NUM_PARALLEL says.
  const slots = isEmbedding && e.dialect === 'ollama' ? 1 : (m.slots ?? e.slots ?? DEFAULT_SLOTS);
  return {
    name,
    prefillTps: positive(m.prefillTps ?? e.prefillTps ?? DEFAULT_PREFILL_TPS, 'prefillTps'),
    prefillSlowdownPerKTok: Math.max(0, m.prefillSlowdownPerKTok ?? e.prefillSlowdownPerKTok ?? 0),
    decodeTps: positive(m.decodeTps ?? e.decodeTps ?? DEFAULT_DECODE_TPS, 'decodeTps'),
    slots: Math.max(1, Math.floor(slots)),
    loadMs: Math.max(0, m.loadMs ?? e.loadMs ?? DEFAULT_LOAD_MS),
    parameterSize,
    paramsBillions,
    family: m.family ?? guessFamily(name),
    capabilities,
    contextLength: m.contextLength ?? DEFAULT_CONTEXT_LENGTH,
    vramFraction: Math.min(1, Math.max(0, m.vramFraction ?? 1)),
    answerTokens: Math.max(1, Math.floor(m.answerTokens ?? e.answerTokens ?? DEFAULT_ANSWER_TOKENS)),
    isEmbedding,
    weightsBytes: Math.round(paramsBillions * 1e9 * BYTES_PER_PARAM_Q4),
    digest: createHash('sha256').update(name).digest('hex'),
  };
}

/** Memory an instance takes when loaded at `numCtx` per slot (Ollama sizes the KV cache as num_ctx × parallel). */
export function loadedSizeBytes(p: ModelProfile, numCtx: number): number {
  return p.weightsBytes + Math.round(p.paramsBillions * KV_BYTES_PER_TOKEN_PER_BPARAM * numCtx * p.slots);
}

/** Ollama names carry a tag; a bare name means `:latest`. */
export function withDefaultTag(name: string): string {
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? name : `${name}:latest`;
}

/** The namespace Ollama's /v1/models reports as owner: "library" unless the name is `user/model`. */
export function ollamaNamespace(name: string): string {
  const slash = name.lastIndexOf('/');
  if (slash < 0) return 'library';
  const path = name.slice(0, slash);
  return path.slice(path.lastIndexOf('/') + 1);
}

function guessParameterSize(name: string): string {
  const match = /[:\-_](\d+(?:\.\d+)?)b\b/i.exec(name);
  return match?.[1] !== undefined ? `${match[1]}B` : '7B';
}

function parseParameterSize(size: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([BM])?/i.exec(size);
  if (match?.[1] === undefined) return 7;
  const n = Number(match[1]);
  return match[2]?.toUpperCase() === 'M' ? n / 1000 : n;
}

function guessFamily(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1).split(':')[0] ?? name;
  return (base.split(/[.\-_]/)[0] ?? base).toLowerCase() || 'llama';
}

function positive(n: number, what: string): number {
  if (!(n > 0) || !Number.isFinite(n)) throw new Error(`${what} must be a positive number, got ${n}`);
  return n;
}
