/**
 * Ollama: the native API (/api/*) plus its OpenAI-compatible layer (/v1/*), both relayed
 * as they are. Health and inventory come from GET /api/tags: an Ollama that answers is Ollama.
 */
import type { EngineAdapter } from './engine-adapter.js';
import { getJson } from './probe-fetch.js';
import type { ModelInfo } from './types.js';

/** Native routes relayed to Ollama as they are. Model management (pull, delete, ...) is deliberately absent. */
const NATIVE_PATHS = new Set(['/api/chat', '/api/generate', '/api/embed', '/api/embeddings', '/api/show', '/api/ps', '/api/version', '/api/tags']);

export const ollamaAdapter: EngineAdapter = {
  kind: 'ollama',
  async probe(baseUrl, dispatcher, signal) {
    const res = await getJson(`${baseUrl}/api/tags`, dispatcher, signal);
    if (!res.ok) return { running: res.running, healthy: false, models: [], error: res.error };
    const models = parseTags(res.json);
    if (models === null) return { running: true, healthy: false, models: [], error: 'GET /api/tags did not answer in Ollama\'s shape' };
    return { running: true, healthy: true, models, error: null };
  },
  upstreamPath(appPath) {
    if (appPath.startsWith('/v1/')) return appPath;
    return NATIVE_PATHS.has(appPath) ? appPath : null;
  },
  speaks: () => true,
};

/** Models from an /api/tags body; null when the body is not in Ollama's shape. */
export function parseTags(body: unknown): ModelInfo[] | null {
  const list = (body as { models?: unknown } | null)?.models;
  if (!Array.isArray(list)) return null;
  const out: ModelInfo[] = [];
  for (const entry of list) {
    const m = entry as { name?: unknown; model?: unknown; size?: unknown; details?: { parameter_size?: unknown }; capabilities?: unknown };
    const name = typeof m.name === 'string' ? m.name : typeof m.model === 'string' ? m.model : null;
    if (name === null || name === '') continue;
    out.push({
      name,
      parameterSize: typeof m.details?.parameter_size === 'string' && m.details.parameter_size !== '' ? m.details.parameter_size : null,
      capabilities: Array.isArray(m.capabilities) ? m.capabilities.filter((c): c is string => typeof c === 'string') : null,
      sizeBytes: typeof m.size === 'number' && m.size > 0 ? m.size : null,
    });
  }
  return out;
}
