/**
 * One completion from queue to last token, independent of any dialect: wait for a slot (and a
 * load), prefill the part of the prompt the slot's cache does not hold, then release tokens at
 * the decode rate. Route handlers turn the tokens and the returned figures into frames.
 */
import type { ModelRuntime } from './slots.js';
import { decodeMs, prefillMs, sleepUntil, type TimeScale } from './timing.js';
import { countTokens, fillerToken, hashText, UNUSED_TOKEN } from './tokens.js';

export type DoneReason = 'stop' | 'length';

/**
 * Simulated ms a request spends getting an already-loaded runner. Ollama's load_duration is never
 * zero even when warm (it times the scheduler hand-off), so a warm request reports this much.
 */
export const WARM_RUNNER_MS = 2;

export interface GenerationRequest {
  runtime: ModelRuntime;
  prompt: string;
  numCtx: number;
  /** num_predict / max_tokens; undefined or non-positive means no limit. */
  maxTokens: number | undefined;
  /** Keep generating to the limit instead of stopping at the natural answer length (vLLM's ignore_eos). */
  ignoreEos: boolean;
  /** Emit `<unusedN>` placeholders instead of words. */
  unused: boolean;
  /** Stop after this many tokens without finishing (the `cut` fault). */
  cutAfter: number | undefined;
  keepAliveMs: number | undefined;
  signal: AbortSignal;
  scale: TimeScale;
}

/** Simulated figures, as the engine would measure them. */
export interface GenerationResult {
  promptTokens: number;
  cachedTokens: number;
  evalCount: number;
  doneReason: DoneReason;
  cut: boolean;
  text: string;
  queueMs: number;
  loadMs: number;
  /** Whether this request paid for a model load or reload itself. */
  loaded: boolean;
  prefillMs: number;
  decodeMs: number;
  totalMs: number;
  slotIndex: number;
}

/** How many tokens the answer has and why it ends. */
export function plannedLength(answerTokens: number, maxTokens: number | undefined, ignoreEos: boolean): { count: number; reason: DoneReason } {
  const limit = maxTokens !== undefined && maxTokens > 0 ? Math.floor(maxTokens) : undefined;
  if (limit === undefined) return { count: answerTokens, reason: 'stop' };
  if (ignoreEos || limit < answerTokens) return { count: limit, reason: 'length' };
  return { count: answerTokens, reason: 'stop' };
}

/**
 * Runs the generation, calling `onToken` for each token at the moment it is produced (the first
 * one marks the time to first byte). Rejects with an AbortError when the client goes away; the
 * slot is freed either way.
 */
export async function runGeneration(g: GenerationRequest, onToken: (token: string, index: number) => void | Promise<void>): Promise<GenerationResult> {
  const profile = g.runtime.profile;
  const promptTokens = countTokens(g.prompt);
  const lease = await g.runtime.acquire({ numCtx: g.numCtx, prompt: g.prompt, signal: g.signal });
  let text = '';
  try {
    const cached = lease.cachedTokens;
    const prefill = prefillMs(cached, promptTokens, profile.prefillTps, profile.prefillSlowdownPerKTok);
    await g.scale.sleep(prefill, g.signal);

    const plan = plannedLength(profile.answerTokens, g.maxTokens, g.ignoreEos);
    const produced = g.cutAfter === undefined ? plan.count : Math.min(plan.count, g.cutAfter);
    const seed = hashText(g.prompt);
    const perTokenWallMs = g.scale.wallMs(decodeMs(1, profile.decodeTps));
    const decodeStart = performance.now();
    for (let i = 0; i < produced; i++) {
      await sleepUntil(decodeStart + i * perTokenWallMs, g.signal);
      const token = g.unused ? UNUSED_TOKEN : fillerToken(seed, i);
      text += token;
      await onToken(token, i);
      g.signal.throwIfAborted();
    }
    await sleepUntil(decodeStart + produced * perTokenWallMs, g.signal);
    const decode = decodeMs(produced, profile.decodeTps);
    lease.release({ text: g.prompt + text }, g.keepAliveMs);
    return {
      promptTokens,
      cachedTokens: cached,
      evalCount: produced,
      doneReason: plan.reason,
      cut: produced < plan.count,
      text,
      queueMs: lease.queueSimMs,
      loadMs: lease.loadSimMs || WARM_RUNNER_MS,
      loaded: lease.loaded,
      prefillMs: prefill,
      decodeMs: decode,
      totalMs: lease.queueSimMs + (lease.loadSimMs || WARM_RUNNER_MS) + prefill + decode,
      slotIndex: lease.slotIndex,
    };
  } catch (err) {
    // Whatever was processed before the hang-up stays usable only as far as it matched the old cache.
    lease.release('truncate', g.keepAliveMs);
    throw err;
  }
}

export interface PrefillResult {
  promptTokens: number;
  loadMs: number;
  prefillMs: number;
  totalMs: number;
}

/**
 * A request that only reads its input: embeddings, and Ollama's load call (empty input). It takes
 * a slot and any load like a generation but leaves the slot's prompt cache as it was, since
 * embedding runners do not reuse prefixes.
 */
export interface PrefillRequest {
  runtime: ModelRuntime;
  input: string;
  numCtx: number;
  keepAliveMs: number | undefined;
  signal: AbortSignal;
  scale: TimeScale;
}

export async function runPrefillOnly(p: PrefillRequest): Promise<PrefillResult> {
  const profile = p.runtime.profile;
  const lease = await p.runtime.acquire({ numCtx: p.numCtx, prompt: '', signal: p.signal });
  try {
    const promptTokens = countTokens(p.input);
    const prefill = prefillMs(0, promptTokens, profile.prefillTps, profile.prefillSlowdownPerKTok);
    await p.scale.sleep(prefill, p.signal);
    lease.release('keep', p.keepAliveMs);
    const loadMs = lease.loadSimMs || WARM_RUNNER_MS;
    return { promptTokens, loadMs, prefillMs: prefill, totalMs: lease.queueSimMs + loadMs + prefill };
  } catch (err) {
    lease.release('keep', p.keepAliveMs);
    throw err;
  }
}
