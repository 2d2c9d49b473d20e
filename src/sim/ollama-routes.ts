/**
 * Ollama's native API: /api/chat, /api/generate, embeddings, and the model listing routes.
 */
import { admit, cutPoint } from './admission.js';
import type { RouteHandler, SimCore } from './core.js';
import { plannedLength, runGeneration, runPrefillOnly, type GenerationResult } from './generation.js';
import { Exchange, isAbortError, parseJson, sendJson, sendRaw, startStream, writeChunk } from './http-io.js';
import { chatFinal, chatFrame, generateFinal, generateFrame, loadReply, NDJSON_TYPE, psEntry, rfc3339Nano, showBody, tagsEntry } from './ollama-frames.js';
import { keepAliveMs, nativeOptions } from './ollama-request.js';
import type { ModelRuntime } from './slots.js';
import { contentText, embedText, isRecord, renderChatPrompt, tokenIds, type ChatMessageLike } from './tokens.js';

/** The version a newer Ollama reports alongside prompt_eval_cached_count, and an older one without it. */
const VERSION_WITH_CACHED_COUNT = '0.34.4';
const VERSION_WITHOUT_CACHED_COUNT = '0.12.3';

export const OLLAMA_ROUTES: Readonly<Record<string, RouteHandler>> = {
  'GET /': async (_core, ex) => sendRaw(ex.res, 200, 'Ollama is running', 'text/plain; charset=utf-8'),
  'GET /api/version': async (core, ex) => sendJson(ex.res, 200, { version: core.reportCachedCount ? VERSION_WITH_CACHED_COUNT : VERSION_WITHOUT_CACHED_COUNT }),
  'GET /api/tags': async (core, ex) => sendJson(ex.res, 200, { models: core.models().map((r) => tagsEntry(r.profile)) }),
  'GET /api/ps': async (core, ex) => sendJson(ex.res, 200, { models: loadedModels(core) }),
  'POST /api/show': async (core, ex, body) => {
    const target = nativeTarget(core, ex, body, ['model', 'name'], false);
    if (target !== null) sendJson(ex.res, 200, showBody(target.runtime.profile));
  },
  'POST /api/chat': async (core, ex, body) => generate(core, ex, body, 'chat'),
  'POST /api/generate': async (core, ex, body) => generate(core, ex, body, 'generate'),
  'POST /api/embed': async (core, ex, body) => embed(core, ex, body),
  'POST /api/embeddings': async (core, ex, body) => legacyEmbeddings(core, ex, body),
};

function loadedModels(core: SimCore): Record<string, unknown>[] {
  const loaded: Array<{ entry: Record<string, unknown>; expires: number }> = [];
  for (const r of core.models()) {
    const numCtx = r.loadedNumCtx();
    if (numCtx === null) continue;
    loaded.push({ entry: psEntry(r.profile, numCtx, r.expiresAtMs()), expires: r.expiresAtMs() });
  }
  // Ollama lists the model furthest from unloading first.
  return loaded.sort((a, b) => b.expires - a.expires).map((l) => l.entry);
}

function nativeError(ex: Exchange, status: number, message: string): null {
  sendJson(ex.res, status, { error: message });
  return null;
}

/** Parses the body and finds the model; answers the error itself and returns null when it cannot. */
function nativeTarget(
  core: SimCore,
  ex: Exchange,
  body: Buffer,
  modelKeys: readonly string[],
  inference: boolean,
): { obj: Record<string, unknown>; runtime: ModelRuntime } | null {
  const fail = (status: number, message: string): null => {
    if (inference) core.countRequest(undefined);
    return nativeError(ex, status, message);
  };
  const parsed = parseJson(body);
  if (parsed.kind === 'missing') return fail(400, 'missing request body');
  if (parsed.kind === 'invalid') return fail(400, parsed.message);
  if (!isRecord(parsed.value)) return fail(400, 'json: cannot unmarshal array into Go value of type api.Request');
  const obj = parsed.value;
  const name = modelKeys.map((k) => obj[k]).find((v): v is string => typeof v === 'string' && v !== '');
  if (name === undefined) return fail(400, 'model is required');
  const runtime = core.find(name);
  if (runtime === undefined) return fail(404, `model '${name}' not found`);
  return { obj, runtime };
}

function faultBody(status: number): string {
  return JSON.stringify({ error: status >= 500 ? 'simulated engine failure' : 'simulated request error' });
}

/** The window a native request runs at: its own num_ctx, capped at the trained context, else the engine default. */
function windowFor(core: SimCore, runtime: ModelRuntime, numCtx: number | undefined): number {
  return Math.min(numCtx ?? core.defaultNumCtx, runtime.profile.contextLength);
}

async function generate(core: SimCore, ex: Exchange, body: Buffer, route: 'chat' | 'generate'): Promise<void> {
  const target = nativeTarget(core, ex, body, ['model'], true);
  if (target === null) return;
  const { obj, runtime } = target;
  const model = runtime.profile.name;
  const shownName = typeof obj['model'] === 'string' ? obj['model'] : model;
  if (runtime.profile.isEmbedding) {
    core.countRequest(runtime);
    return void nativeError(ex, 400, `"${shownName}" does not support ${route}`);
  }
  const flags = await admit(core, ex, runtime, faultBody);
  if (flags === null) return;

  const opts = nativeOptions(obj);
  const keepAlive = keepAliveMs(obj['keep_alive']);
  const numCtx = windowFor(core, runtime, opts.numCtx);
  const prompt = route === 'chat' ? chatPrompt(obj['messages']) : generatePrompt(obj);
  if (prompt === null) return loadCall(core, ex, runtime, route, numCtx, keepAlive);

  const stream = obj['stream'] !== false;
  const plan = plannedLength(runtime.profile.answerTokens, opts.numPredict, obj['ignore_eos'] === true);
  const frame = route === 'chat' ? chatFrame : generateFrame;
  let result: GenerationResult;
  try {
    result = await runGeneration(
      {
        runtime,
        prompt,
        numCtx,
        maxTokens: opts.numPredict,
        ignoreEos: obj['ignore_eos'] === true,
        unused: flags.unused,
        cutAfter: flags.cut ? cutPoint(plan.count) : undefined,
        keepAliveMs: keepAlive,
        signal: ex.signal,
        scale: core.scale,
      },
      async (token) => {
        if (!stream) return;
        startStream(ex.res, NDJSON_TYPE);
        await writeChunk(ex.res, `${JSON.stringify(frame(shownName, token))}\n`);
      },
    );
  } catch (err) {
    return failMidway(ex, err);
  }
  if (result.cut) {
    // The broken-model signature: content, then the stream (or body) ends without done: true.
    if (stream) return ex.endDeliberately();
    const partial = route === 'chat' ? { message: { role: 'assistant', content: result.text } } : { response: result.text };
    return sendJson(ex.res, 200, { model: shownName, created_at: rfc3339Nano(), ...partial, done: false });
  }
  const context = route === 'generate' && obj['raw'] !== true ? tokenIds(prompt, result.evalCount) : undefined;
  const finalText = stream ? '' : result.text;
  const final =
    route === 'chat'
      ? chatFinal(shownName, finalText, result, core.reportCachedCount)
      : generateFinal(shownName, finalText, result, core.reportCachedCount, context);
  if (!stream) return sendJson(ex.res, 200, final);
  startStream(ex.res, NDJSON_TYPE);
  ex.res.end(`${JSON.stringify(final)}\n`);
}

/** Chat prompt text, or null for a load call (`messages` empty or absent). */
function chatPrompt(messages: unknown): string | null {
  if (!Array.isArray(messages) || messages.length === 0) return null;
  return renderChatPrompt(messages.filter(isRecord) as ChatMessageLike[]);
}

function generatePrompt(obj: Record<string, unknown>): string | null {
  const prompt = typeof obj['prompt'] === 'string' ? obj['prompt'] : '';
  if (prompt === '') return null;
  const system = typeof obj['system'] === 'string' && obj['raw'] !== true ? obj['system'] : '';
  return system === '' ? prompt : `${system}\n\n${prompt}`;
}

async function loadCall(
  core: SimCore,
  ex: Exchange,
  runtime: ModelRuntime,
  route: 'chat' | 'generate',
  numCtx: number,
  keepAlive: number | undefined,
): Promise<void> {
  const model = runtime.profile.name;
  if (keepAlive === 0) {
    runtime.unload();
    return sendJson(ex.res, 200, loadReply(route, model, 'unload'));
  }
  try {
    await runPrefillOnly({ runtime, input: '', numCtx, keepAliveMs: keepAlive, signal: ex.signal, scale: core.scale });
  } catch (err) {
    return failMidway(ex, err);
  }
  sendJson(ex.res, 200, loadReply(route, model, 'load'));
}

/** An error after the answer started becomes a last NDJSON line with no done frame, as Ollama does. */
function failMidway(ex: Exchange, err: unknown): void {
  if (isAbortError(err)) return;
  const message = err instanceof Error ? err.message : String(err);
  if (!ex.res.headersSent) return void nativeError(ex, 500, message);
  ex.res.end(`${JSON.stringify({ error: message })}\n`);
}

async function embed(core: SimCore, ex: Exchange, body: Buffer): Promise<void> {
  const target = nativeTarget(core, ex, body, ['model'], true);
  if (target === null) return;
  const { obj, runtime } = target;
  const input = obj['input'];
  const inputs = typeof input === 'string' ? [input] : Array.isArray(input) ? input : input === undefined ? [] : null;
  if (inputs === null || !inputs.every((i): i is string => typeof i === 'string')) {
    core.countRequest(runtime);
    return void nativeError(ex, 400, 'invalid input type');
  }
  const flags = await admit(core, ex, runtime, faultBody);
  if (flags === null) return;
  const shownName = typeof obj['model'] === 'string' ? obj['model'] : runtime.profile.name;
  const texts = inputs.filter((t) => t !== '');
  if (texts.length === 0) return sendJson(ex.res, 200, { model: shownName, embeddings: [] });
  const numCtx = windowFor(core, runtime, nativeOptions(obj).numCtx);
  try {
    const r = await runPrefillOnly({
      runtime,
      input: texts.join(''),
      numCtx,
      keepAliveMs: keepAliveMs(obj['keep_alive']),
      signal: ex.signal,
      scale: core.scale,
    });
    const metrics: Record<string, number> = {};
    if (r.totalMs > 0) metrics['total_duration'] = Math.round(r.totalMs * 1e6);
    if (r.loadMs > 0) metrics['load_duration'] = Math.round(r.loadMs * 1e6);
    if (r.promptTokens > 0) metrics['prompt_eval_count'] = r.promptTokens;
    sendJson(ex.res, 200, { model: shownName, embeddings: texts.map(embedText), ...metrics });
  } catch (err) {
    failMidway(ex, err);
  }
}

async function legacyEmbeddings(core: SimCore, ex: Exchange, body: Buffer): Promise<void> {
  const target = nativeTarget(core, ex, body, ['model'], true);
  if (target === null) return;
  const { obj, runtime } = target;
  const flags = await admit(core, ex, runtime, faultBody);
  if (flags === null) return;
  const prompt = contentText(obj['prompt']);
  if (prompt === '') return sendJson(ex.res, 200, { embedding: [] });
  const numCtx = windowFor(core, runtime, nativeOptions(obj).numCtx);
  try {
    await runPrefillOnly({ runtime, input: prompt, numCtx, keepAliveMs: keepAliveMs(obj['keep_alive']), signal: ex.signal, scale: core.scale });
    sendJson(ex.res, 200, { embedding: embedText(prompt) });
  } catch (err) {
    failMidway(ex, err);
  }
}
