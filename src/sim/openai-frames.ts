/**
 * OpenAI-compatible chunk and body builders, parameterised by the engine's flavor.
 */
import type { GenerationResult } from './generation.js';
import type { OpenAIFlavor } from './openai-flavors.js';

export type Endpoint = 'chat' | 'completion';

/** The fixed part of every chunk and body in one response. */
export interface ResponseHead {
  readonly flavor: OpenAIFlavor;
  readonly endpoint: Endpoint;
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

export function responseHead(flavor: OpenAIFlavor, endpoint: Endpoint, model: string): ResponseHead {
  return {
    flavor,
    endpoint,
    id: endpoint === 'chat' ? flavor.chatId() : flavor.completionId(),
    created: Math.floor(Date.now() / 1000),
    model,
  };
}

function base(h: ResponseHead, streamed: boolean): Record<string, unknown> {
  const object = h.endpoint === 'completion' ? 'text_completion' : streamed ? 'chat.completion.chunk' : 'chat.completion';
  return { id: h.id, object, created: h.created, model: h.model, ...h.flavor.baseExtras };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export function usageOf(r: GenerationResult, reportCached: boolean): Usage {
  const usage: Usage = { prompt_tokens: r.promptTokens, completion_tokens: r.evalCount, total_tokens: r.promptTokens + r.evalCount };
  if (reportCached) usage.prompt_tokens_details = { cached_tokens: r.cachedTokens };
  return usage;
}

/** llama.cpp's timings object: counts and milliseconds of the uncached prompt part and the generation. */
export function timingsOf(r: GenerationResult): Record<string, number> {
  const promptN = r.promptTokens - r.cachedTokens;
  return {
    cache_n: r.cachedTokens,
    prompt_n: promptN,
    prompt_ms: round3(r.prefillMs),
    prompt_per_token_ms: promptN > 0 ? round3(r.prefillMs / promptN) : 0,
    prompt_per_second: r.prefillMs > 0 ? round3((promptN / r.prefillMs) * 1000) : 0,
    predicted_n: r.evalCount,
    predicted_ms: round3(r.decodeMs),
    predicted_per_token_ms: r.evalCount > 0 ? round3(r.decodeMs / r.evalCount) : 0,
    predicted_per_second: r.decodeMs > 0 ? round3((r.evalCount / r.decodeMs) * 1000) : 0,
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function choice(h: ResponseHead, payload: Record<string, unknown>, finish: string | null, final: boolean): Record<string, unknown> {
  const c: Record<string, unknown> = { index: 0, ...payload };
  if (h.endpoint === 'chat' ? h.flavor.chatLogprobs : h.flavor.completionLogprobs) c['logprobs'] = null;
  c['finish_reason'] = finish;
  if (h.flavor.stopReason && final) c['stop_reason'] = null;
  return c;
}

/** A streamed chunk carrying `text` (or an empty delta when text is null), with finish_reason when it ends the answer. */
export function contentChunk(h: ResponseHead, text: string | null, finish: string | null): Record<string, unknown> {
  return { ...base(h, true), choices: [choice(h, payloadFor(h, text), finish, finish !== null)] };
}

function payloadFor(h: ResponseHead, text: string | null): Record<string, unknown> {
  if (h.endpoint === 'completion') return { text: text ?? '' };
  if (text === null) return { delta: {} };
  // Ollama builds every delta from a whole message, so each one names the role.
  if (h.flavor.roleChunk === 'role-on-every-delta') return { delta: { role: 'assistant', content: text } };
  return { delta: { content: text } };
}

/** The opening chunk vLLM and llama.cpp send before any content; null when the flavor has none. */
export function roleChunk(h: ResponseHead): Record<string, unknown> | null {
  if (h.endpoint !== 'chat' || h.flavor.roleChunk === 'role-on-every-delta') return null;
  const content = h.flavor.roleChunk === 'role-empty-content' ? '' : null;
  return { ...base(h, true), choices: [choice(h, { delta: { role: 'assistant', content } }, null, false)] };
}

export function usageChunk(h: ResponseHead, usage: Usage): Record<string, unknown> {
  return { ...base(h, true), choices: [], usage };
}

/** Ollama's /v1/completions with include_usage puts an all-zero usage on every chunk before the real one. */
export const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export function fullBody(h: ResponseHead, text: string, finish: string | null, usage: Usage, timings?: Record<string, number>): Record<string, unknown> {
  const payload = h.endpoint === 'chat' ? { message: { role: 'assistant', content: text } } : { text };
  return {
    ...base(h, false),
    choices: [choice(h, payload, finish, true)],
    usage,
    ...(timings === undefined ? {} : { timings }),
  };
}

export function sseEvent(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';
