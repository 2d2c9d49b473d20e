/**
 * The timings an engine reports about its own work, read from an answer's final frame or
 * whole body when a walk settles (for placement's throughput samples). Untrusted input: a
 * field counts only when it is a finite, non-negative number; anything else reads as absent.
 */

export interface EngineTimings {
  /** The whole prompt, cached part included (Ollama prompt_eval_count, usage.prompt_tokens, llama.cpp timings.cache_n + prompt_n); null: not reported. */
  readonly promptTokens: number | null;
  /** Prompt tokens served from the engine's cache (Ollama prompt_eval_cached_count, usage.prompt_tokens_details.cached_tokens, llama.cpp timings.cache_n); null: not reported. */
  readonly cachedTokens: number | null;
  /** The engine's own prompt evaluation time, ms (Ollama prompt_eval_duration, llama.cpp timings.prompt_ms); null: not reported. */
  readonly promptMs: number | null;
  /** Generated tokens (Ollama eval_count, usage.completion_tokens, llama.cpp timings.predicted_n); null: not reported. */
  readonly completionTokens: number | null;
  /** The engine's own generation time, ms (Ollama eval_duration, llama.cpp timings.predicted_ms); null: not reported. */
  readonly decodeMs: number | null;
}

const NS_PER_MS = 1_000_000;

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

function obj(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** A nanosecond count as ms; null when absent. */
function nsAsMs(v: unknown): number | null {
  const n = num(v);
  return n === null ? null : n / NS_PER_MS;
}

/**
 * Timings from one parsed frame or body, in either dialect; null when it carries none. Written
 * without closures, Object.values or Object.keys: it runs on every settled completion, and those
 * were most of the throughput sampler's 2% of the Hub's busy time in the bench:quick profile
 * (2026-12-02).
 */
function timingsOf(doc: unknown): EngineTimings | null {
  const d = obj(doc);
  if (d === null) return null;
  const usage = obj(d.usage);
  const llama = obj(d.timings);
  // llama.cpp's prompt_n is only the part it read this request; the whole prompt adds the cached
  // cache_n (protocols.md §4: usage.prompt_tokens = cache_n + prompt_n). A stream without
  // include_usage, the OpenAI SDKs' default, has only the timings, and an append to a cached
  // history counted as its read part gave a negative or understated read.
  const promptRead = num(llama?.prompt_n);
  const promptCached = num(llama?.cache_n);
  const llamaPrompt = promptRead === null ? null : promptRead + (promptCached ?? 0);
  const promptTokens = num(d.prompt_eval_count) ?? num(usage?.prompt_tokens) ?? llamaPrompt;
  const cachedTokens = num(d.prompt_eval_cached_count) ?? num(obj(usage?.prompt_tokens_details)?.cached_tokens) ?? promptCached;
  const promptMs = nsAsMs(d.prompt_eval_duration) ?? num(llama?.prompt_ms);
  const completionTokens = num(d.eval_count) ?? num(usage?.completion_tokens) ?? num(llama?.predicted_n);
  const decodeMs = nsAsMs(d.eval_duration) ?? num(llama?.predicted_ms);
  if (promptTokens === null && cachedTokens === null && promptMs === null && completionTokens === null && decodeMs === null) return null;
  return { promptTokens, cachedTokens, promptMs, completionTokens, decodeMs };
}

/**
 * Timings from the last frames of an answer (or its one body), latest first: a stream can
 * carry usage in one frame and the engine's timings in another, so each field is taken from
 * the latest frame that has it.
 */
export function readEngineTimings(frames: readonly unknown[]): EngineTimings | null {
  let merged: { -readonly [K in keyof EngineTimings]: number | null } | null = null;
  for (let i = frames.length - 1; i >= 0; i--) {
    const t = timingsOf(frames[i]);
    if (t === null) continue;
    if (merged === null) {
      merged = { ...t };
      continue;
    }
    merged.promptTokens ??= t.promptTokens;
    merged.cachedTokens ??= t.cachedTokens;
    merged.promptMs ??= t.promptMs;
    merged.completionTokens ??= t.completionTokens;
    merged.decodeMs ??= t.decodeMs;
  }
  return merged;
}
