/**
 * Public option and state shapes of the engine simulator. Kept apart from the implementation so
 * tests, benchmarks and the CLI can import them without pulling in the server.
 */

/** Which engine's wire protocol one simulator process speaks. */
export type Dialect = 'ollama' | 'vllm' | 'lemonade' | 'omlx' | 'llamacpp';

export const DIALECTS: readonly Dialect[] = ['ollama', 'vllm', 'lemonade', 'omlx', 'llamacpp'];

export function isDialect(value: string): value is Dialect {
  return (DIALECTS as readonly string[]).includes(value);
}

/** Per-model overrides; anything left out takes the engine-wide value. */
export interface SimModelOptions {
  name: string;
  prefillTps?: number;
  /** Fractional prefill slow-down per 1,000 tokens already in context (CPU-like); 0 = flat. */
  prefillSlowdownPerKTok?: number;
  decodeTps?: number;
  slots?: number;
  loadMs?: number;
  /** Display size such as "8B"; guessed from the name (":8b") when absent. */
  parameterSize?: string;
  family?: string;
  capabilities?: string[];
  /** Trained context length (what /api/show and /v1/models report as the model's maximum). */
  contextLength?: number;
  /** Share of the loaded instance in GPU memory, 0..1; below 1 shows a partial offload in /api/ps. */
  vramFraction?: number;
  /** Words in a natural answer before the simulated model stops on its own. */
  answerTokens?: number;
}

export type FaultMode = 'refuse' | 'hang' | 'error' | 'unused' | 'cut' | 'slow-first-byte' | 'none';

export const FAULT_MODES: readonly FaultMode[] = ['refuse', 'hang', 'error', 'unused', 'cut', 'slow-first-byte', 'none'];

export interface SimFault {
  mode: FaultMode;
  /** Restrict to one model; every model when absent. Ignored by `refuse`, which closes the port. */
  model?: string;
  /** HTTP status for mode `error` (default 500). */
  status?: number;
  /** Raw JSON body text for mode `error` (default: the dialect's own error shape). */
  body?: string;
  /** Simulated ms: the extra wait for `slow-first-byte`, or how long `refuse` lasts (until restored when absent). */
  delayMs?: number;
  /** Apply to the next N matching requests, then clear; until cleared when absent. */
  count?: number;
}

export interface SimEngineOptions {
  dialect: Dialect;
  models: Array<string | SimModelOptions>;
  port?: number;
  host?: string;
  slots?: number;
  prefillTps?: number;
  prefillSlowdownPerKTok?: number;
  decodeTps?: number;
  loadMs?: number;
  /** Wall-clock ms waited per simulated ms; 0.01 runs 100x faster. Reported timings stay simulated. */
  timeScale?: number;
  /** The window a model runs at when the request names none (and always on OpenAI routes). */
  defaultNumCtx?: number;
  /** Ollama dialect: report `prompt_eval_cached_count` natively and cached_tokens on /v1 (newer Ollama). */
  reportCachedCount?: boolean;
  /** vLLM dialect: report `prompt_tokens_details.cached_tokens` (vLLM's --enable-prompt-tokens-details). */
  reportCachedTokens?: boolean;
  /** Ollama dialect: simulated ms a model stays loaded after its last request (OLLAMA_KEEP_ALIVE); negative = forever. */
  keepAliveMs?: number;
  answerTokens?: number;
  faults?: SimFault[];
  /** Serve the /__sim/* control routes on a second port too (0 = any free port), reachable while `refuse` is on. */
  controlPort?: number;
}

export interface SimModelState {
  inFlight: number;
  queued: number;
  slots: number;
  requests: number;
  aborted: number;
  loads: number;
  loadedNumCtx: number | null;
  /** Tokens each slot holds in its prefix cache. */
  slotCachedTokens: number[];
}

export interface SimActiveFault extends SimFault {
  /** Requests still to be hit when the fault was given a count. */
  remaining?: number;
}

export interface SimState {
  dialect: Dialect;
  inFlight: number;
  queued: number;
  /** Inference requests received (chat, generate, completions, embeddings), including failed ones. */
  requests: number;
  /**
   * Every request the engine port received, by URL path as sent (no query), whether it was served,
   * refused with a 4xx or not found; a path never asked is absent. Control routes are not counted.
   */
  requestsByPath: Record<string, number>;
  /** Requests whose client hung up before the answer was complete. */
  aborted: number;
  /** Requests held by the `hang` fault right now. */
  hanging: number;
  /** True while the main port refuses connections. */
  refusing: boolean;
  perModel: Record<string, SimModelState>;
  loadedNumCtx: Record<string, number | null>;
  faults: SimActiveFault[];
}
