/**
 * One completion on the real model: wait for a slot, reuse its cached prefix, evaluate the rest
 * of the prompt, then sample token by token until an end token, the request's limit, a stop
 * string, the slot's context or the client's hang-up. The figures returned are wall-clock
 * measurements around node-llama-cpp's own calls, the way llama.cpp's server takes them:
 * prompt time from the start of evaluation to the first sampled token (only the uncached part is
 * evaluated), generation time from that token to the last.
 *
 * Decisions the issue asked to make explicitly:
 * - End of turn: evaluate() swallows end-of-generation tokens unless yieldEogToken is on, and
 *   then nothing tells an end token from a generator that just stopped. It is on here; the end
 *   token is counted (llama.cpp counts it in predicted_n too) but never becomes text.
 * - Valid UTF-8: byte-fallback tokens can each be half a character, and control tokens are not
 *   text. Both are biased to never (runtime.ts), so every streamed piece is whole text.
 * - Overflow: a prompt that does not fit the slot is refused before any work (ContextOverflow);
 *   generation stops with done_reason "length" when the slot's context is full. The context is
 *   never shifted, so no request silently loses its beginning.
 */
import type { Token } from 'node-llama-cpp';
import type { GenerationResult } from '../sim/generation.js';
import type { LlamaCore } from './core.js';
import { reuseCachedPrefix } from './prompt-cache.js';
import type { Sampling } from './sampling.js';
import { StopMatcher } from './stop-matcher.js';

export class ContextOverflowError extends Error {
  readonly promptTokens: number;
  readonly contextTokens: number;
  constructor(promptTokens: number, contextTokens: number) {
    super(`the input length (${promptTokens} tokens) exceeds the context length (${contextTokens} tokens)`);
    this.name = 'ContextOverflowError';
    this.promptTokens = promptTokens;
    this.contextTokens = contextTokens;
  }
}

export interface CompletionJob {
  readonly route: string;
  readonly prompt: readonly Token[];
  readonly sampling: Sampling;
  readonly signal: AbortSignal;
  /** performance.now() when the request arrived (total_duration runs from here). */
  readonly receivedAt: number;
  /** Wall ms the request spent getting the (already loaded) model: Ollama's load_duration. */
  readonly loadMs: number;
}

export interface CompletionResult extends GenerationResult {
  /** Generated token ids, the end token included when there was one. */
  readonly generated: Token[];
  readonly aborted: boolean;
}

/** Throws ContextOverflowError when the prompt leaves no room to generate in one slot. */
export function checkFits(core: LlamaCore, prompt: readonly Token[]): void {
  if (prompt.length >= core.runtime.slotCtx) throw new ContextOverflowError(prompt.length, core.runtime.slotCtx);
}

/**
 * Runs the completion; `onText` gets each piece of text as it is produced and is awaited (a
 * slow reader slows generation rather than piling up output). Resolves with aborted: true when
 * the signal fired; rejects with an AbortError only if it fired before a slot was free.
 */
export async function runCompletion(core: LlamaCore, job: CompletionJob, onText: (text: string) => Promise<void>): Promise<CompletionResult> {
  checkFits(core, job.prompt);
  const id = core.log.begin();
  let lease;
  try {
    lease = await core.pool.acquire(job.prompt, job.signal);
  } catch (err) {
    core.log.abandon();
    throw err;
  }
  const slotAt = performance.timeOrigin + performance.now();
  const { model, banned, bannedWithEnds, slotCtx } = core.runtime;
  const s = job.sampling;
  const history: Token[] = [...job.prompt];
  const generated: Token[] = [];
  const stop = new StopMatcher(s.stop);
  let text = '';
  let doneReason: 'stop' | 'length' = 'length';
  let aborted = false;
  let failed = false;
  // Room left in the slot: every generated token but the last is evaluated into it.
  const room = slotCtx - job.prompt.length;
  const limit = Math.min(room, s.maxTokens ?? Infinity);
  const started = performance.now();
  let firstAt = started;
  let ended = started;
  let cached = 0;
  try {
    const prefix = await reuseCachedPrefix(lease.sequence, job.prompt);
    cached = prefix.cached;
    const penalize = s.repeatPenalty !== 1 || s.frequencyPenalty !== 0 || s.presencePenalty !== 0;
    const tokens = lease.sequence.evaluate(prefix.rest, {
      temperature: s.temperature,
      topK: s.topK,
      topP: s.topP,
      minP: s.minP,
      ...(s.seed === undefined ? {} : { seed: s.seed }),
      ...(penalize
        ? {
            repeatPenalty: {
              punishTokens: () => history.slice(-Math.max(0, s.repeatLastN)),
              maxPunishTokens: Math.max(1, s.repeatLastN),
              penalty: s.repeatPenalty,
              frequencyPenalty: s.frequencyPenalty,
              presencePenalty: s.presencePenalty,
            },
          }
        : {}),
      tokenBias: s.ignoreEos ? bannedWithEnds : banned,
      yieldEogToken: true,
    });
    for await (const token of tokens) {
      if (generated.length === 0) firstAt = performance.now();
      generated.push(token);
      history.push(token);
      if (model.isEogToken(token)) {
        doneReason = 'stop';
        break;
      }
      const piece = model.detokenize([token], false, history.slice(-8, -1));
      const out = stop.push(piece);
      if (out.text !== '') {
        text += out.text;
        await onText(out.text);
      }
      if (out.stopped) {
        doneReason = 'stop';
        break;
      }
      if (job.signal.aborted) {
        aborted = true;
        break;
      }
      if (generated.length >= limit) break;
    }
    if (!aborted) {
      const rest = stop.flush();
      if (rest !== '') {
        text += rest;
        await onText(rest);
      }
    }
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    lease.release();
    ended = performance.now();
    if (generated.length === 0) firstAt = ended;
    core.log.finish({
      id,
      route: job.route,
      kind: 'completion',
      slot: lease.index,
      outcome: failed ? 'error' : aborted ? 'aborted' : doneReason,
      promptTokens: job.prompt.length,
      cachedTokens: cached,
      evalCount: generated.length,
      queueMs: lease.queueMs,
      prefillMs: firstAt - started,
      decodeMs: ended - firstAt,
      totalMs: ended - job.receivedAt,
      slotAt,
      endedAt: performance.timeOrigin + ended,
    });
  }
  return {
    promptTokens: job.prompt.length,
    cachedTokens: cached,
    evalCount: generated.length,
    doneReason,
    cut: false,
    text,
    queueMs: lease.queueMs,
    loadMs: job.loadMs,
    loaded: false,
    prefillMs: firstAt - started,
    decodeMs: ended - firstAt,
    totalMs: ended - job.receivedAt,
    slotIndex: lease.index,
    generated,
    aborted,
  };
}
