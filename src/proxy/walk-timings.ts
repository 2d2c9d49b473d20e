/**
 * The timings an engine reports about its own work, read from an answer's final frame or
 * whole body when a walk settles (for placement's throughput samples). Untrusted input: a
 * field counts only when it is a finite, non-negative number; anything else reads as absent.
 */

export interface EngineTimings {
  /** Prompt tokens (Ollama prompt_eval_count, usage.prompt_tokens, llama.cpp timings.prompt_n); null: not reported. */
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

/** Timings from one parsed frame or body, in either dialect; null when it carries none. */
function timingsOf(doc: unknown): EngineTimings | null {
  const d = obj(doc);
  if (d === null) return null;
  const usage = obj(d.usage);
  const llama = obj(d.timings);
  const ns = (v: unknown) => {
    const n = num(v);
    return n === null ? null : n / NS_PER_MS;
  };
  const t: EngineTimings = {
    promptTokens: num(d.prompt_eval_count) ?? num(usage?.prompt_tokens) ?? num(llama?.prompt_n),
    cachedTokens: num(d.prompt_eval_cached_count) ?? num(obj(usage?.prompt_tokens_details)?.cached_tokens) ?? num(llama?.cache_n),
    promptMs: ns(d.prompt_eval_duration) ?? num(llama?.prompt_ms),
    completionTokens: num(d.eval_count) ?? num(usage?.completion_tokens) ?? num(llama?.predicted_n),
    decodeMs: ns(d.eval_duration) ?? num(llama?.predicted_ms),
  };
  return Object.values(t).every((v) => v === null) ? null : t;
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
    merged ??= { promptTokens: null, cachedTokens: null, promptMs: null, completionTokens: null, decodeMs: null };
    for (const key of Object.keys(merged) as (keyof EngineTimings)[]) merged[key] ??= t[key];
  }
  return merged;
}
