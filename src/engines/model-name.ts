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

export function backendHolds(backend: BackendView, requested: string): boolean {
  return backend.models.some((m) => isSameModel(backend.kind, m.name, requested));
}
