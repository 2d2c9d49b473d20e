/**
 * The OpenAI-compatible layer, as Ollama's /v1 serves it: chat and text completions (streamed
 * as SSE or whole), embeddings and the model list. Chunks come from the simulator's OpenAI
 * frame builders with Ollama's flavor (role on every delta, finish_reason on its own chunk,
 * fp_ollama). Like newer Ollama releases, usage carries prompt_tokens_details.cached_tokens:
 * prompt_tokens is the whole prompt and cached_tokens the part read from the slot's cache.
 */
import { Exchange, isAbortError, JSON_TYPE, parseJson, sendJson, startStream, writeChunk } from '../sim/http-io.js';
import { OPENAI_FLAVORS, type ErrorKind } from '../sim/openai-flavors.js';
import {
  contentChunk,
  fullBody,
  responseHead,
  SSE_DONE,
  sseEvent,
  usageChunk,
  usageOf,
  ZERO_USAGE,
  type Endpoint,
  type ResponseHead,
} from '../sim/openai-frames.js';
import { isRecord } from '../sim/tokens.js';
import type { LlamaCore } from './core.js';
import { embedTexts } from './embed.js';
import { ContextOverflowError, runCompletion, type CompletionResult } from './generation.js';
import { v1ModelCard } from './model-card.js';
import type { RouteHandler } from './ollama-routes.js';
import { chatTokens, chatTurns, rawTokens } from './prompt.js';
import { openaiSampling } from './sampling.js';

const FLAVOR = OPENAI_FLAVORS.ollama;

export const OPENAI_ROUTES: Readonly<Record<string, RouteHandler>> = {
  'GET /v1/models': async (core, ex) => sendJson(ex.res, 200, { object: 'list', data: [v1ModelCard(core)] }),
  'POST /v1/chat/completions': async (core, ex, body) => complete(core, ex, body, 'chat'),
  'POST /v1/completions': async (core, ex, body) => complete(core, ex, body, 'completion'),
  'POST /v1/embeddings': async (core, ex, body) => embeddings(core, ex, body),
};

/** GET /v1/models/<name>. */
export function modelRoute(core: LlamaCore, ex: Exchange, name: string): void {
  if (!core.serves(name)) return void fail(ex, 404, FLAVOR.notFoundMessage(name), 'not_found');
  sendJson(ex.res, 200, v1ModelCard(core));
}

function fail(ex: Exchange, status: number, message: string, kind: ErrorKind): null {
  sendJson(ex.res, status, FLAVOR.errorBody(status, message, kind));
  return null;
}

function target(core: LlamaCore, ex: Exchange, body: Buffer): { obj: Record<string, unknown>; shown: string } | null {
  const parsed = parseJson(body);
  if (parsed.kind === 'missing') return fail(ex, 400, 'missing request body', 'bad_request');
  if (parsed.kind === 'invalid') return fail(ex, 400, `invalid JSON: ${parsed.message}`, 'bad_request');
  if (!isRecord(parsed.value)) return fail(ex, 400, 'request body must be a JSON object', 'bad_request');
  const obj = parsed.value;
  const name = typeof obj['model'] === 'string' && obj['model'] !== '' ? obj['model'] : undefined;
  if (name === undefined) return fail(ex, 400, 'model is required', 'bad_request');
  if (!core.serves(name)) return fail(ex, 404, FLAVOR.notFoundMessage(name), 'not_found');
  return { obj, shown: name };
}

/** Tools and structured output, which Ollama's /v1 passes on as tools and format: the model has neither. */
function unsupported(obj: Record<string, unknown>, shown: string): string | null {
  if (Array.isArray(obj['tools']) && obj['tools'].length > 0) return `${shown} does not support tools`;
  const format = obj['response_format'];
  if (isRecord(format) && format['type'] !== undefined && format['type'] !== 'text') return `${shown} does not support structured output (response_format)`;
  return null;
}

function includeUsage(obj: Record<string, unknown>): boolean {
  const o = obj['stream_options'];
  return isRecord(o) && o['include_usage'] === true;
}

async function complete(core: LlamaCore, ex: Exchange, body: Buffer, endpoint: Endpoint): Promise<void> {
  const receivedAt = performance.now();
  const t = target(core, ex, body);
  if (t === null) return;
  const { obj, shown } = t;
  const loadMs = performance.now() - receivedAt;
  const refusal = unsupported(obj, shown);
  if (refusal !== null) return void fail(ex, 400, refusal, 'bad_request');
  let prompt;
  if (endpoint === 'chat') {
    const messages = obj['messages'];
    if (!Array.isArray(messages)) return void fail(ex, 400, 'messages is required', 'bad_request');
    if (messages.length === 0) return void fail(ex, 400, "[] is too short - 'messages'", 'bad_request');
    prompt = chatTokens(core.runtime.model, chatTurns(messages));
  } else {
    if (typeof obj['prompt'] !== 'string') return void fail(ex, 400, 'prompt must be a string', 'bad_request');
    prompt = rawTokens(core.runtime.model, obj['prompt']);
  }
  const stream = obj['stream'] === true;
  const h = responseHead(FLAVOR, endpoint, shown);
  const writer = new SseWriter(ex, h, includeUsage(obj));
  const route = endpoint === 'chat' ? '/v1/chat/completions' : '/v1/completions';
  let result: CompletionResult;
  try {
    result = await runCompletion(core, { route, prompt, sampling: openaiSampling(obj), signal: ex.signal, receivedAt, loadMs }, async (text) => {
      if (stream) await writer.text(text);
    });
  } catch (err) {
    return writer.fail(err, stream);
  }
  if (result.aborted) return;
  if (stream) return writer.finish(result);
  sendJson(ex.res, 200, fullBody(h, result.text, result.doneReason, usageOf(result, true)), JSON_TYPE);
}

/** Writes one streamed completion in Ollama's /v1 order. */
class SseWriter {
  readonly #ex: Exchange;
  readonly #h: ResponseHead;
  readonly #includeUsage: boolean;

  constructor(ex: Exchange, h: ResponseHead, includeUsage: boolean) {
    this.#ex = ex;
    this.#h = h;
    this.#includeUsage = includeUsage;
  }

  /** Ollama's completions writer puts an all-zero usage on every chunk when usage was asked for. */
  #chunk(text: string | null, finish: string | null): Record<string, unknown> {
    const chunk = contentChunk(this.#h, text, finish);
    return this.#h.endpoint === 'completion' && this.#includeUsage ? { ...chunk, usage: ZERO_USAGE } : chunk;
  }

  async text(text: string): Promise<void> {
    startStream(this.#ex.res, FLAVOR.sseContentType);
    await writeChunk(this.#ex.res, sseEvent(this.#chunk(text, null)));
  }

  async finish(r: CompletionResult): Promise<void> {
    startStream(this.#ex.res, FLAVOR.sseContentType);
    await writeChunk(this.#ex.res, sseEvent(this.#chunk(null, r.doneReason)));
    if (this.#includeUsage) await writeChunk(this.#ex.res, sseEvent(usageChunk(this.#h, usageOf(r, true))));
    this.#ex.res.end(SSE_DONE);
  }

  /** Before the stream: an error status. During it: Ollama's empty delta chunk, then the stream ends with no [DONE]. */
  fail(err: unknown, stream: boolean): void {
    if (isAbortError(err)) return;
    const message = err instanceof Error ? err.message : String(err);
    const res = this.#ex.res;
    if (!stream || !res.headersSent) {
      const overflow = err instanceof ContextOverflowError;
      return void fail(this.#ex, overflow ? 400 : 500, message, overflow ? 'bad_request' : 'server');
    }
    res.end(sseEvent(contentChunk(this.#h, '', null)));
  }
}

async function embeddings(core: LlamaCore, ex: Exchange, body: Buffer): Promise<void> {
  const t = target(core, ex, body);
  if (t === null) return;
  const { obj, shown } = t;
  const input = obj['input'];
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) && input.every((i) => typeof i === 'string') ? (input as string[]) : null;
  if (texts === null || texts.length === 0) return void fail(ex, 400, 'invalid input', 'bad_request');
  const dimensions = typeof obj['dimensions'] === 'number' ? obj['dimensions'] : undefined;
  try {
    const r = await embedTexts(core, '/v1/embeddings', texts, { truncate: true, normalize: true, ...(dimensions === undefined ? {} : { dimensions }) });
    const base64 = obj['encoding_format'] === 'base64';
    const data = r.vectors.map((v, index) => ({ object: 'embedding', index, embedding: base64 ? toBase64(v) : v }));
    sendJson(ex.res, 200, { object: 'list', data, model: shown, usage: { prompt_tokens: r.promptTokens, total_tokens: r.promptTokens } });
  } catch (err) {
    fail(ex, 500, err instanceof Error ? err.message : String(err), 'server');
  }
}

/** encoding_format "base64": little-endian float32 bytes. */
function toBase64(v: readonly number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}
