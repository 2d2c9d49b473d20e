/**
 * Whether an engine's listed model is the one a request names. Names compare verbatim and
 * case-sensitively, with one exception Ollama itself makes: a name without a tag means
 * `:latest`, and Ollama lists it that way (`nomic-embed-text` is served as
 * `nomic-embed-text:latest`). Other engines name models by path or id, where ':' is no tag.
 */
import type { EngineKind } from './engine-kind.js';
import type { BackendView } from './types.js';

export const LATEST_TAG = ':latest';

/**
 * Longest model name the Hub reads from anyone: an app's request, an engine's listing, a peer's
 * document. Real ids are a few dozen characters; a longer name is refused or dropped before it
 * can reach the routing log, which once held twenty 40 MB names (issue 9, defect 6).
 */
export const MAX_MODEL_NAME_LENGTH = 256;

/**
 * Characters no model name holds: C0 and C1 controls, DEL, and the invisible direction and
 * line-separator marks (the set peer refusal reasons and the CLI treat as unprintable). A name
 * read from an engine or a peer reaches the pool's own /api/tags and /v1/models, whose readers
 * (`ollama list`, a web UI) print it as it is: a peer's name carrying terminal escapes would
 * clear or retitle the screen of whoever lists the pool.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Whether a name an engine or a peer gave can be a model's: 1 to MAX_MODEL_NAME_LENGTH characters, none unprintable. */
export function isReadableModelName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_MODEL_NAME_LENGTH && !UNPRINTABLE.test(value);
}

/** Characters of a peer's engine kind kept: every kind this Hub knows is a short word. */
export const MAX_ENGINE_KIND_LENGTH = 32;

/**
 * A peer's engine kind as this Hub keeps it, cut to MAX_ENGINE_KIND_LENGTH; null when it is not
 * readable by the model-name rule. The kind is printed by status, the CLI and the dashboard, so
 * it is held to the same rule as the names listed under it.
 */
export function readableEngineKind(value: unknown): string | null {
  return isReadableModelName(value) ? value.slice(0, MAX_ENGINE_KIND_LENGTH) : null;
}

/**
 * A tag is a ':' after the last '/'. Read in place, building no string: isSameModel asks it of
 * the requested name for each listed model it compares.
 */
export function hasOllamaTag(name: string): boolean {
  return name.indexOf(':', name.lastIndexOf('/') + 1) !== -1;
}

export function isSameModel(kind: EngineKind, listed: string, requested: string): boolean {
  if (listed === requested) return true;
  return (
    kind === 'ollama' &&
    listed.length === requested.length + LATEST_TAG.length &&
    listed.endsWith(LATEST_TAG) &&
    listed.startsWith(requested) &&
    !hasOllamaTag(requested)
  );
}

/** One model on an engine of `kind` under either name: a request's and a listing's, or two requests'. */
export function isSameModelEitherWay(kind: EngineKind, a: string, b: string): boolean {
  return isSameModel(kind, a, b) || isSameModel(kind, b, a);
}

/**
 * The one name a model goes by on an engine of `kind`, for records kept per engine and model:
 * on Ollama a tagless name is the `:latest` it means, so `qwen3` and `qwen3:latest` are one
 * model, as isSameModel reads them; any other name as given. Builds a string only for a tagless
 * Ollama name.
 */
export function canonicalModelName(kind: EngineKind, name: string): string {
  return kind === 'ollama' && !hasOllamaTag(name) ? `${name}${LATEST_TAG}` : name;
}

export function backendHolds(backend: BackendView, requested: string): boolean {
  return backend.models.some((m) => isSameModel(backend.kind, m.name, requested));
}
