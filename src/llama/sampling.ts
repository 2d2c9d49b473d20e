/**
 * Sampling settings from either dialect, with Ollama's defaults where a request says nothing:
 * temperature 0.8, top_k 40, top_p 0.9, min_p 0, repeat_penalty 1.1 over the last 64 tokens.
 * On /v1, Ollama sets temperature and top_p to 1.0 when they are absent, and reads only
 * max_tokens. temperature 0 is greedy, so a request with it is reproducible; so is one with a
 * seed.
 */
import { isRecord } from '../sim/tokens.js';

export interface Sampling {
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  seed: number | undefined;
  repeatPenalty: number;
  repeatLastN: number;
  frequencyPenalty: number;
  presencePenalty: number;
  /** Generated tokens at most; undefined = until an end token or the slot's context is full. */
  maxTokens: number | undefined;
  stop: string[];
  /** llama.cpp's and vLLM's ignore_eos (top level, in either dialect): end tokens are never sampled, so generation runs to the limit. */
  ignoreEos: boolean;
}

const OLLAMA_DEFAULTS = { temperature: 0.8, topK: 40, topP: 0.9, minP: 0, repeatPenalty: 1.1, repeatLastN: 64 } as const;

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function stops(v: unknown): string[] {
  if (typeof v === 'string') return v === '' ? [] : [v];
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s !== '') : [];
}

/** A positive limit, or undefined for none (Ollama's -1 and -2 both run until the context is full here). */
function limit(v: unknown): number | undefined {
  const n = num(v);
  return n !== undefined && n > 0 ? Math.floor(n) : undefined;
}

/** From an Ollama native body's `options`. */
export function nativeSampling(body: Record<string, unknown>): Sampling {
  const o = isRecord(body['options']) ? body['options'] : {};
  return {
    temperature: num(o['temperature']) ?? OLLAMA_DEFAULTS.temperature,
    topK: num(o['top_k']) ?? OLLAMA_DEFAULTS.topK,
    topP: num(o['top_p']) ?? OLLAMA_DEFAULTS.topP,
    minP: num(o['min_p']) ?? OLLAMA_DEFAULTS.minP,
    seed: seedOf(o['seed']),
    repeatPenalty: num(o['repeat_penalty']) ?? OLLAMA_DEFAULTS.repeatPenalty,
    repeatLastN: num(o['repeat_last_n']) ?? OLLAMA_DEFAULTS.repeatLastN,
    frequencyPenalty: num(o['frequency_penalty']) ?? 0,
    presencePenalty: num(o['presence_penalty']) ?? 0,
    maxTokens: limit(o['num_predict']),
    stop: stops(o['stop']),
    ignoreEos: body['ignore_eos'] === true,
  };
}

/** From an OpenAI-compatible body, as Ollama's /v1 layer maps it. */
export function openaiSampling(body: Record<string, unknown>): Sampling {
  return {
    temperature: num(body['temperature']) ?? 1,
    topK: OLLAMA_DEFAULTS.topK,
    topP: num(body['top_p']) ?? 1,
    minP: OLLAMA_DEFAULTS.minP,
    seed: seedOf(body['seed']),
    repeatPenalty: OLLAMA_DEFAULTS.repeatPenalty,
    repeatLastN: OLLAMA_DEFAULTS.repeatLastN,
    frequencyPenalty: num(body['frequency_penalty']) ?? 0,
    presencePenalty: num(body['presence_penalty']) ?? 0,
    maxTokens: limit(body['max_tokens']),
    stop: stops(body['stop']),
    ignoreEos: body['ignore_eos'] === true,
  };
}

/** Ollama's seed -1 means "pick one"; so does an absent or unreadable seed. */
function seedOf(v: unknown): number | undefined {
  const n = num(v);
  return n === undefined || n < 0 ? undefined : Math.floor(n) >>> 0;
}
