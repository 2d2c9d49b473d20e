/**
 * Ollama's native API on the real model: chat, generate, embed (and the legacy embeddings
 * route), tags, ps, show and version. Frames are built by the simulator's Ollama frame builders,
 * so both engines put the same keys in the same order; only the figures differ, and here they
 * are what llama.cpp measured.
 */
import type { Token } from 'node-llama-cpp';
import { Exchange, isAbortError, parseJson, sendJson, sendRaw, startStream, writeChunk } from '../sim/http-io.js';
import { chatFinal, chatFrame, generateFinal, generateFrame, loadReply, NDJSON_TYPE } from '../sim/ollama-frames.js';
import { keepAliveMs } from '../sim/ollama-request.js';
import { contentText, isRecord } from '../sim/tokens.js';
import type { LlamaCore } from './core.js';
import { embedTexts, EmbedInputTooLong } from './embed.js';
import { ContextOverflowError, runCompletion, type CompletionResult } from './generation.js';
import { psEntry, showBody, tagsEntry } from './model-card.js';
import { chatTokens, chatTurns, rawTokens } from './prompt.js';
import { nativeSampling } from './sampling.js';
import { VOCAB_SIZE } from './vocab.js';

export type RouteHandler = (core: LlamaCore, ex: Exchange, body: Buffer) => Promise<void>;

/**
 * The version this engine reports. It speaks the Ollama API of the releases that also send
 * prompt_eval_cached_count (the simulator uses the same number for that behaviour).
 */
export const OLLAMA_API_VERSION = '0.34.4';

export const NATIVE_ROUTES: Readonly<Record<string, RouteHandler>> = {
  'GET /': async (_core, ex) => sendRaw(ex.res, 200, 'Ollama is running', 'text/plain; charset=utf-8'),
  'GET /api/version': async (_core, ex) => sendJson(ex.res, 200, { version: OLLAMA_API_VERSION }),
  'GET /api/tags': async (core, ex) => sendJson(ex.res, 200, { models: [tagsEntry(core)] }),
  'GET /api/ps': async (core, ex) => sendJson(ex.res, 200, { models: [psEntry(core)] }),
  'POST /api/show': async (core, ex, body) => {
    const t = target(core, ex, body, ['model', 'name']);
    if (t !== null) sendJson(ex.res, 200, showBody(core, t.obj['verbose'] === true));
  },
  'POST /api/chat': async (core, ex, body) => generate(core, ex, body, 'chat'),
  'POST /api/generate': async (core, ex, body) => generate(core, ex, body, 'generate'),
  'POST /api/embed': async (core, ex, body) => embed(core, ex, body),
  'POST /api/embeddings': async (core, ex, body) => legacyEmbeddings(core, ex, body),
};

function fail(ex: Exchange, status: number, message: string): null {
  sendJson(ex.res, status, { error: message });
  return null;
}

/** Parses the body and checks the model; answers the error itself and returns null when it cannot. */
function target(core: LlamaCore, ex: Exchange, body: Buffer, keys: readonly string[] = ['model']): { obj: Record<string, unknown>; shown: string } | null {
  const parsed = parseJson(body);
  if (parsed.kind === 'missing') return fail(ex, 400, 'missing request body');
  if (parsed.kind === 'invalid') return fail(ex, 400, parsed.message);
  if (!isRecord(parsed.value)) return fail(ex, 400, 'json: cannot unmarshal array into Go value of type api.Request');
  const obj = parsed.value;
  const name = keys.map((k) => obj[k]).find((v): v is string => typeof v === 'string' && v !== '');
  if (name === undefined) return fail(ex, 400, 'model is required');
  if (!core.serves(name)) return fail(ex, 404, `model '${name}' not found`);
  return { obj, shown: name };
}

/** The prompt's tokens, or null for Ollama's load call (no messages, or an empty prompt). */
function promptTokens(core: LlamaCore, obj: Record<string, unknown>, route: 'chat' | 'generate'): Token[] | null {
  const model = core.runtime.model;
  if (route === 'chat') {
    const messages = obj['messages'];
    if (!Array.isArray(messages) || messages.length === 0) return null;
    return chatTokens(model, chatTurns(messages));
  }
  const prompt = typeof obj['prompt'] === 'string' ? obj['prompt'] : '';
  if (prompt === '') return null;
  if (obj['raw'] === true) return rawTokens(model, prompt);
  const system = typeof obj['system'] === 'string' && obj['system'] !== '' ? [{ role: 'system', content: obj['system'] }] : [];
  const turn = chatTokens(model, [...system, { role: 'user', content: prompt }]);
  // The deprecated `context` carries an earlier exchange's tokens; the new turn follows them.
  const context = Array.isArray(obj['context']) ? obj['context'].filter((t): t is number => Number.isInteger(t) && t >= 0 && t < VOCAB_SIZE) : [];
  return context.length === 0 ? turn : [...(context as Token[]), ...turn.slice(1)];
}

/** What the model cannot do, refused up front rather than answered with something else. */
function unsupported(obj: Record<string, unknown>, shown: string): string | null {
  const think = obj['think'];
  if (think === true || (typeof think === 'string' && think !== '')) return `"${shown}" does not support thinking`;
  if (Array.isArray(obj['tools']) && obj['tools'].length > 0) return `${shown} does not support tools`;
  const messages = Array.isArray(obj['messages']) ? obj['messages'] : [];
  const images = [obj, ...messages].some((m) => isRecord(m) && Array.isArray(m['images']) && m['images'].length > 0);
  if (images) return `${shown} does not support images`;
  if (obj['format'] !== undefined && obj['format'] !== null && obj['format'] !== '') return `${shown} does not support structured output (format)`;
  return null;
}

async function generate(core: LlamaCore, ex: Exchange, body: Buffer, route: 'chat' | 'generate'): Promise<void> {
  const receivedAt = performance.now();
  const t = target(core, ex, body);
  if (t === null) return;
  const { obj, shown } = t;
  const loadMs = performance.now() - receivedAt;
  const refusal = unsupported(obj, shown);
  if (refusal !== null) return void fail(ex, 400, refusal);
  const prompt = promptTokens(core, obj, route);
  if (prompt === null) {
    // The model is loaded for the engine's whole life: a load call has nothing to wait for, and
    // an unload call is answered as Ollama does but leaves it loaded.
    return sendJson(ex.res, 200, loadReply(route, shown, keepAliveMs(obj['keep_alive']) === 0 ? 'unload' : 'load'));
  }
  const stream = obj['stream'] !== false;
  const frame = route === 'chat' ? chatFrame : generateFrame;
  let result: CompletionResult;
  try {
    result = await runCompletion(
      core,
      { route: `/api/${route}`, prompt, sampling: nativeSampling(obj), signal: ex.signal, receivedAt, loadMs },
      async (text) => {
        if (!stream) return;
        startStream(ex.res, NDJSON_TYPE);
        await writeChunk(ex.res, `${JSON.stringify(frame(shown, text))}\n`);
      },
    );
  } catch (err) {
    return failMidway(ex, err);
  }
  if (result.aborted) return;
  const final =
    route === 'chat'
      ? chatFinal(shown, stream ? '' : result.text, result, true)
      : generateFinal(shown, stream ? '' : result.text, result, true, obj['raw'] === true ? undefined : contextOf(core, prompt, result));
  if (!stream) return sendJson(ex.res, 200, final);
  startStream(ex.res, NDJSON_TYPE);
  ex.res.end(`${JSON.stringify(final)}\n`);
}

/** Prompt and answer tokens, for the next turn's `context`; an end token is not part of the answer. */
function contextOf(core: LlamaCore, prompt: readonly Token[], r: CompletionResult): number[] {
  const answer = r.generated.filter((tok) => !core.runtime.model.isEogToken(tok));
  return [...prompt, ...answer];
}

/** Before any frame: an error status. After: one last {"error"} line and no done frame, as Ollama does. */
function failMidway(ex: Exchange, err: unknown): void {
  if (isAbortError(err)) return;
  const message = err instanceof Error ? err.message : String(err);
  const status = err instanceof ContextOverflowError ? 400 : 500;
  if (!ex.res.headersSent) return void fail(ex, status, message);
  ex.res.end(`${JSON.stringify({ error: message })}\n`);
}

async function embed(core: LlamaCore, ex: Exchange, body: Buffer): Promise<void> {
  const receivedAt = performance.now();
  const t = target(core, ex, body);
  if (t === null) return;
  const { obj, shown } = t;
  const input = obj['input'];
  const inputs = typeof input === 'string' ? [input] : Array.isArray(input) ? input : input === undefined ? [] : null;
  if (inputs === null || !inputs.every((i): i is string => typeof i === 'string')) return void fail(ex, 400, 'invalid input type');
  const loadMs = performance.now() - receivedAt;
  const texts = inputs.filter((s) => s !== '');
  if (texts.length === 0) return sendJson(ex.res, 200, { model: shown, embeddings: [] });
  const dimensions = typeof obj['dimensions'] === 'number' ? obj['dimensions'] : undefined;
  try {
    const r = await embedTexts(core, '/api/embed', texts, {
      truncate: obj['truncate'] !== false,
      normalize: true,
      ...(dimensions === undefined ? {} : { dimensions }),
    });
    sendJson(ex.res, 200, {
      model: shown,
      embeddings: r.vectors,
      total_duration: Math.round((performance.now() - receivedAt) * 1e6),
      load_duration: Math.max(1, Math.round(loadMs * 1e6)),
      prompt_eval_count: r.promptTokens,
    });
  } catch (err) {
    fail(ex, err instanceof EmbedInputTooLong ? 400 : 500, err instanceof Error ? err.message : String(err));
  }
}

async function legacyEmbeddings(core: LlamaCore, ex: Exchange, body: Buffer): Promise<void> {
  const t = target(core, ex, body);
  if (t === null) return;
  const prompt = contentText(t.obj['prompt']);
  if (prompt === '') return sendJson(ex.res, 200, { embedding: [] });
  try {
    const r = await embedTexts(core, '/api/embeddings', [prompt], { truncate: true, normalize: false });
    sendJson(ex.res, 200, { embedding: r.vectors[0] ?? [] });
  } catch (err) {
    fail(ex, 500, err instanceof Error ? err.message : String(err));
  }
}
