/**
 * The OpenAI-compatible routes every dialect serves (Ollama as its /v1 layer): chat and text
 * completions, embeddings, and the model list. stream defaults to false here.
 */
import { admit, cutPoint, type RunFlags } from './admission.js';
import type { RouteHandler, SimCore } from './core.js';
import { plannedLength, runGeneration, type GenerationResult } from './generation.js';
import { Exchange, isAbortError, JSON_TYPE, sendJson, startStream, writeChunk } from './http-io.js';
import { OPENAI_FLAVORS, type OpenAIFlavor } from './openai-flavors.js';
import {
  contentChunk,
  fullBody,
  responseHead,
  roleChunk,
  SSE_DONE,
  sseEvent,
  timingsOf,
  usageChunk,
  usageOf,
  ZERO_USAGE,
  type Endpoint,
  type ResponseHead,
} from './openai-frames.js';
import { embeddings } from './openai-embeddings.js';
import { modelCard, modelsList } from './openai-models.js';
import { faultBody, openaiError, openaiTarget } from './openai-request.js';
import { isRecord, renderChatPrompt, type ChatMessageLike } from './tokens.js';

export const OPENAI_ROUTES: Readonly<Record<string, RouteHandler>> = {
  'GET /v1/models': async (core, ex) => sendJson(ex.res, 200, modelsList(core)),
  'POST /v1/chat/completions': async (core, ex, body) => complete(core, ex, body, 'chat'),
  'POST /v1/completions': async (core, ex, body) => complete(core, ex, body, 'completion'),
  'POST /v1/embeddings': async (core, ex, body) => embeddings(core, ex, body),
};

/** Ollama also answers GET /v1/models/<name>. */
export function ollamaModelRoute(core: SimCore, ex: Exchange, name: string): void {
  const runtime = core.find(name);
  const flavor = OPENAI_FLAVORS.ollama;
  if (runtime === undefined) return sendJson(ex.res, 404, flavor.errorBody(404, flavor.notFoundMessage(name), 'not_found'));
  sendJson(ex.res, 200, modelCard(core, runtime));
}

function promptFor(endpoint: Endpoint, obj: Record<string, unknown>, dialect: SimCore['dialect']): string | { error: string } {
  if (endpoint === 'chat') {
    const messages = obj['messages'];
    if (!Array.isArray(messages)) return { error: 'messages is required' };
    if (messages.length === 0 && dialect === 'ollama') return { error: "[] is too short - 'messages'" };
    return renderChatPrompt(messages.filter(isRecord) as ChatMessageLike[]);
  }
  const prompt = obj['prompt'];
  if (typeof prompt === 'string') return prompt;
  if (dialect !== 'ollama' && Array.isArray(prompt) && prompt.every((p) => typeof p === 'string')) return prompt.join('');
  return { error: 'prompt must be a string' };
}

function maxTokensOf(obj: Record<string, unknown>, dialect: SimCore['dialect']): number | undefined {
  // Ollama's /v1 layer reads only max_tokens; the others prefer max_completion_tokens.
  const raw = dialect === 'ollama' ? obj['max_tokens'] : (obj['max_completion_tokens'] ?? obj['max_tokens']);
  return typeof raw === 'number' && Number.isFinite(raw) ? Math.trunc(raw) : undefined;
}

function includeUsageOf(obj: Record<string, unknown>, dialect: SimCore['dialect']): boolean {
  const opts = obj['stream_options'];
  if (!isRecord(opts)) return false;
  // vLLM turns include_usage on whenever stream_options is present at all.
  return dialect === 'vllm' ? opts['include_usage'] !== false : opts['include_usage'] === true;
}

/** Whether this engine tells how much of the prompt came from its cache. */
function reportsCached(core: SimCore): boolean {
  if (core.dialect === 'ollama') return core.reportCachedCount;
  if (core.dialect === 'vllm') return core.reportCachedTokens;
  return true;
}

async function complete(core: SimCore, ex: Exchange, body: Buffer, endpoint: Endpoint): Promise<void> {
  const target = openaiTarget(core, ex, body);
  if (target === null) return;
  const { obj, runtime, shownModel } = target;
  const prompt = promptFor(endpoint, obj, core.dialect);
  if (typeof prompt !== 'string' || runtime.profile.isEmbedding) {
    core.countRequest(runtime);
    const message = typeof prompt !== 'string' ? prompt.error : `"${shownModel}" does not support ${endpoint === 'chat' ? 'chat' : 'generate'}`;
    return void openaiError(core, ex, 400, message, 'bad_request');
  }
  const flags = await admit(core, ex, runtime, (status) => faultBody(core, status));
  if (flags === null) return;
  const stream = obj['stream'] === true;
  const h = responseHead(OPENAI_FLAVORS[core.dialect], endpoint, shownModel);
  const run = new CompletionRun(core, ex, h, includeUsageOf(obj, core.dialect));
  const maxTokens = maxTokensOf(obj, core.dialect);
  const ignoreEos = obj['ignore_eos'] === true;
  const plan = plannedLength(runtime.profile.answerTokens, maxTokens, ignoreEos);
  const cutAfter = flags.cut ? cutPoint(plan.count) : undefined;
  const lastIndex = flags.cut ? -1 : plan.count - 1;
  let result: GenerationResult;
  try {
    result = await runGeneration(
      {
        runtime,
        prompt,
        numCtx: core.dialect === 'ollama' ? Math.min(core.defaultNumCtx, runtime.profile.contextLength) : core.defaultNumCtx,
        maxTokens,
        ignoreEos,
        unused: flags.unused,
        cutAfter,
        keepAliveMs: undefined,
        signal: ex.signal,
        scale: core.scale,
      },
      async (token, i) => {
        if (stream) await run.token(token, i, i === lastIndex ? plan.reason : null);
      },
    );
  } catch (err) {
    return run.fail(err, stream);
  }
  if (stream) await run.finishStream(result, flags);
  else run.finishBody(result, flags);
}

/** Writes one completion's frames in the engine's order. */
class CompletionRun {
  #core: SimCore;
  #ex: Exchange;
  #h: ResponseHead;
  #includeUsage: boolean;
  #flavor: OpenAIFlavor;

  constructor(core: SimCore, ex: Exchange, h: ResponseHead, includeUsage: boolean) {
    this.#core = core;
    this.#ex = ex;
    this.#h = h;
    this.#includeUsage = includeUsage;
    this.#flavor = h.flavor;
  }

  async #event(data: unknown): Promise<void> {
    await writeChunk(this.#ex.res, sseEvent(data));
  }

  /** Ollama's completions writer attaches a zero usage to every chunk when usage was asked for. */
  #withZeroUsage(chunk: Record<string, unknown>): Record<string, unknown> {
    const zero = this.#core.dialect === 'ollama' && this.#h.endpoint === 'completion' && this.#includeUsage;
    return zero ? { ...chunk, usage: ZERO_USAGE } : chunk;
  }

  async token(token: string, index: number, finish: string | null): Promise<void> {
    if (index === 0) {
      startStream(this.#ex.res, this.#flavor.sseContentType);
      const opening = roleChunk(this.#h);
      if (opening !== null) await this.#event(opening);
    }
    const chunkFinish = this.#flavor.separateFinishChunk ? null : finish;
    await this.#event(this.#withZeroUsage(contentChunk(this.#h, token, chunkFinish)));
  }

  async finishStream(r: GenerationResult, flags: RunFlags): Promise<void> {
    if (flags.cut || r.cut) {
      // No finish chunk, no [DONE]: the connection just drops mid-body.
      this.#ex.destroyDeliberately();
      return;
    }
    const timings = this.#flavor.timings ? { timings: timingsOf(r) } : {};
    if (this.#flavor.separateFinishChunk) {
      const finish = this.#withZeroUsage(contentChunk(this.#h, null, r.doneReason));
      await this.#event(this.#includeUsage ? finish : { ...finish, ...timings });
    }
    if (this.#includeUsage) await this.#event({ ...usageChunk(this.#h, usageOf(r, reportsCached(this.#core))), ...timings });
    this.#ex.res.end(SSE_DONE);
  }

  finishBody(r: GenerationResult, flags: RunFlags): void {
    const finish = flags.cut || r.cut ? null : r.doneReason;
    const timings = this.#flavor.timings ? timingsOf(r) : undefined;
    sendJson(this.#ex.res, 200, fullBody(this.#h, r.text, finish, usageOf(r, reportsCached(this.#core)), timings), JSON_TYPE);
  }

  /** An engine error after the stream began: an error frame (vLLM then [DONE]; Ollama an empty delta), else an error status. */
  fail(err: unknown, stream: boolean): void {
    if (isAbortError(err)) return;
    const message = err instanceof Error ? err.message : String(err);
    const res = this.#ex.res;
    if (!stream || !res.headersSent) return void openaiError(this.#core, this.#ex, 500, message, 'server');
    if (this.#core.dialect === 'ollama') return void res.end(sseEvent(contentChunk(this.#h, '', null)));
    const frame = sseEvent(this.#flavor.errorBody(500, message, 'server'));
    res.end(this.#flavor.doneAfterErrorFrame ? frame + SSE_DONE : frame);
  }
}
