/** The adapter for each engine kind. */
import type { EngineAdapter } from './engine-adapter.js';
import type { EngineKind } from './engine-kind.js';
import { ollamaAdapter } from './ollama.js';
import { openAICompatibleAdapter } from './openai-compatible.js';

export const ADAPTERS: Readonly<Record<EngineKind, EngineAdapter>> = {
  ollama: ollamaAdapter,
  vllm: openAICompatibleAdapter('vllm'),
  lemonade: openAICompatibleAdapter('lemonade'),
  omlx: openAICompatibleAdapter('omlx'),
  llamacpp: openAICompatibleAdapter('llamacpp'),
};
