/**
 * Whether an engine's listed model is the one a request names. Names compare verbatim and
 * case-sensitively, with one exception Ollama itself makes: a name without a tag means
 * `:latest`, and Ollama lists it that way (`nomic-embed-text` is served as
 * `nomic-embed-text:latest`). Other engines name models by path or id, where ':' is no tag.
 */
import type { EngineKind } from './engine-kind.js';
import type { BackendView } from './types.js';

function hasOllamaTag(name: string): boolean {
  return name.slice(name.lastIndexOf('/') + 1).includes(':');
}

export function isSameModel(kind: EngineKind, listed: string, requested: string): boolean {
  if (listed === requested) return true;
  return kind === 'ollama' && !hasOllamaTag(requested) && listed === `${requested}:latest`;
}

export function backendHolds(backend: BackendView, requested: string): boolean {
  return backend.models.some((m) => isSameModel(backend.kind, m.name, requested));
}
