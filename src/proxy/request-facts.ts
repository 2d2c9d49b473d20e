/**
 * What placement needs from a request body, read once. The body itself is forwarded as the
 * bytes the app sent unless auto has to be replaced by the model it resolved to.
 */
import { MAX_MODEL_NAME_LENGTH } from '../engines/model-name.js';
import { HubError } from '../errors.js';
import { parseRequestJson } from '../util/request-json.js';
import type { RoutedRoute } from './route-table.js';

export interface RequestFacts {
  /** The model the app named; null when the body names none. */
  readonly model: string | null;
  /** Whether the app asked for a stream, by the route's default when the body does not say. */
  readonly stream: boolean;
  /** options.num_ctx on a native route; null when the request names no window. */
  readonly numCtx: number | null;
  /** The parsed body (only read, never mutated). */
  readonly json: Readonly<Record<string, unknown>>;
}

export function readRequestFacts(raw: Buffer, route: RoutedRoute): RequestFacts {
  if (raw.length === 0) throw new HubError('HUB_ERR_INVALID_JSON', 'the request has no body; send a JSON object with a model field');
  const json = parseRequestJson(raw);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new HubError('HUB_ERR_INVALID_JSON', 'the request body must be a JSON object');
  }
  const body = json as Record<string, unknown>;
  if (body.model !== undefined && typeof body.model !== 'string') {
    throw new HubError('HUB_ERR_BAD_REQUEST', `model must be a string; got ${typeof body.model}`);
  }
  if (typeof body.model === 'string' && body.model.length > MAX_MODEL_NAME_LENGTH) {
    throw new HubError('HUB_ERR_BAD_REQUEST', `model must be at most ${MAX_MODEL_NAME_LENGTH} characters; got ${body.model.length}`);
  }
  // null is no answer either way, as both dialects read it: Ollama's field is a *bool whose nil
  // streams (protocols.md, 2.1), OpenAI's a nullable boolean defaulting to false.
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    throw new HubError('HUB_ERR_BAD_REQUEST', `stream must be true or false; got ${JSON.stringify(body.stream)}`);
  }
  const model = typeof body.model === 'string' && body.model.trim() !== '' ? body.model : null;
  const stream = route.streamsByDefault ? body.stream !== false : body.stream === true;
  const options = body.options as { num_ctx?: unknown } | undefined;
  const numCtx =
    route.dialect === 'ollama' && typeof options?.num_ctx === 'number' && Number.isInteger(options.num_ctx) && options.num_ctx > 0 ? options.num_ctx : null;
  return { model, stream, numCtx, json: body };
}

/** The body to forward: the original bytes, or a re-serialised copy when the model was replaced (auto). */
export function forwardBody(raw: Buffer, facts: RequestFacts, model: string): Buffer {
  return facts.model === model ? raw : Buffer.from(JSON.stringify({ ...facts.json, model }));
}
