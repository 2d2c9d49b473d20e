/** A healthy local Ollama that answered just now, holding the named models, for tests and benchmarks: override what the case is about. */
import type { BackendView, ModelInfo } from './types.js';

/** A listed model the engine says nothing else about. */
export const modelInfoFixture = (name: string): ModelInfo => ({ name, parameterSize: null, capabilities: null, sizeBytes: null });

export function backendViewFixture(modelNames: readonly string[], extra: Partial<BackendView> = {}): BackendView {
  return {
    backendId: 'ollama',
    kind: 'ollama',
    url: 'http://127.0.0.1:11434',
    running: true,
    healthy: true,
    error: null,
    probedMsAgo: 0,
    models: modelNames.map(modelInfoFixture),
    ...extra,
  };
}
