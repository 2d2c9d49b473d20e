/**
 * The shared front half of every OpenAI-compatible inference route: parse the body, resolve the
 * model (vLLM and llama.cpp fall back to their first model), and answer errors in the dialect's
 * own error shape.
 */
import type { SimCore } from './core.js';
import { parseJson, sendJson, type Exchange } from './http-io.js';
import { OPENAI_FLAVORS, type ErrorKind } from './openai-flavors.js';
import type { ModelRuntime } from './slots.js';
import { isRecord } from './tokens.js';

export function openaiError(core: SimCore, ex: Exchange, status: number, message: string, kind: ErrorKind): null {
  sendJson(ex.res, status, OPENAI_FLAVORS[core.dialect].errorBody(status, message, kind));
  return null;
}

export interface OpenAITarget {
  obj: Record<string, unknown>;
  runtime: ModelRuntime;
  shownModel: string;
}

/** Parses the body and resolves the model; answers the error itself and returns null when it cannot. */
export function openaiTarget(core: SimCore, ex: Exchange, body: Buffer): OpenAITarget | null {
  const flavor = OPENAI_FLAVORS[core.dialect];
  const fail = (status: number, message: string, kind: ErrorKind): null => {
    core.countRequest(undefined);
    return openaiError(core, ex, status, message, kind);
  };
  const parsed = parseJson(body);
  if (parsed.kind === 'missing') return fail(400, 'missing request body', 'bad_request');
  if (parsed.kind === 'invalid') return fail(400, `invalid JSON: ${parsed.message}`, 'bad_request');
  if (!isRecord(parsed.value)) return fail(400, 'request body must be a JSON object', 'bad_request');
  const obj = parsed.value;
  const requested = typeof obj['model'] === 'string' && obj['model'] !== '' ? obj['model'] : undefined;
  const first = core.models()[0];
  if (requested === undefined) {
    // vLLM and llama.cpp serve their (first) model when the field is left out.
    if (flavor.modelOptional && first !== undefined) return { obj, runtime: first, shownModel: first.profile.name };
    return fail(400, 'model is required', 'bad_request');
  }
  const runtime = core.find(requested);
  if (runtime === undefined) return fail(404, flavor.notFoundMessage(requested), 'not_found');
  return { obj, runtime, shownModel: requested };
}

export function faultBody(core: SimCore, status: number): string {
  const kind: ErrorKind = status >= 500 ? 'server' : status === 404 ? 'not_found' : 'bad_request';
  return JSON.stringify(OPENAI_FLAVORS[core.dialect].errorBody(status, 'simulated engine failure', kind));
}
