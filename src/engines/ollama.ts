/**
 * Ollama: the native API (/api/*) plus its OpenAI-compatible layer (/v1/*), both relayed
 * as they are. Health and inventory come from GET /api/tags: an Ollama that answers is Ollama.
 */
import type { EngineAdapter } from './engine-adapter.js';
import { parseTags } from './engine-answers.js';
import { ENGINE_LISTING_MAX_BYTES, getParsed, ParsedAnswers } from './probe-fetch.js';

const TAGS = new ParsedAnswers(parseTags);

/** Native routes relayed to Ollama as they are. Model management (pull, delete, ...) is deliberately absent. */
const NATIVE_PATHS = new Set(['/api/chat', '/api/generate', '/api/embed', '/api/embeddings', '/api/show', '/api/ps', '/api/version', '/api/tags']);

export const ollamaAdapter: EngineAdapter = {
  kind: 'ollama',
  async probe(baseUrl, dispatcher, signal) {
    const res = await getParsed(`${baseUrl}/api/tags`, dispatcher, signal, ENGINE_LISTING_MAX_BYTES, TAGS);
    if (!res.ok) return { running: res.running, healthy: false, models: [], error: res.error };
    const models = res.value;
    if (models === null) return { running: true, healthy: false, models: [], error: "GET /api/tags did not answer in Ollama's shape" };
    return { running: true, healthy: true, models, error: null };
  },
  upstreamPath(appPath) {
    if (appPath.startsWith('/v1/')) return appPath;
    return NATIVE_PATHS.has(appPath) ? appPath : null;
  },
  speaks: () => true,
};

export { parseTags };
