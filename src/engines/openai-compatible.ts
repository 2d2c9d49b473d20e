/**
 * OpenAI-compatible engines: vLLM, Lemonade, oMLX and llama.cpp's server. They speak only
 * /v1/*, so a native Ollama request never lands on them (the Hub relays bytes, it does not
 * translate dialects). Health and inventory come from GET /v1/models.
 *
 * vLLM and oMLX both default to port 8000 and every such server answers /v1/models, so the
 * probe reads owned_by (spec, "Two engines on port 8000"): a server that names another
 * engine is running but not healthy as this one; one that names no engine is left alone.
 */
import type { EngineAdapter } from './engine-adapter.js';
import { ENGINE_KINDS, type EngineKind } from './engine-kind.js';
import { parseModelList } from './engine-answers.js';
import { ENGINE_LISTING_MAX_BYTES, getJson } from './probe-fetch.js';

type OpenAIKind = Exclude<EngineKind, 'ollama'>;

/** Lemonade serves its OpenAI API under /api/v1 (it also answers /v1; /api/v1 is its documented base). */
const API_BASE: Readonly<Record<OpenAIKind, string>> = {
  vllm: '/v1',
  lemonade: '/api/v1',
  omlx: '/v1',
  llamacpp: '/v1',
};

const RELAYED_OPENAI_PATHS = new Set(['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/models']);

export function openAICompatibleAdapter(kind: OpenAIKind): EngineAdapter {
  const base = API_BASE[kind];
  return {
    kind,
    async probe(baseUrl, dispatcher, signal) {
      const res = await getJson(`${baseUrl}${base}/models`, dispatcher, signal, ENGINE_LISTING_MAX_BYTES);
      if (!res.ok) return { running: res.running, healthy: false, models: [], error: res.error };
      const parsed = parseModelList(res.json);
      if (parsed === null) return { running: true, healthy: false, models: [], error: `GET ${base}/models did not answer with a model list` };
      const other = parsed.owners.find((owner) => owner !== kind && (ENGINE_KINDS as readonly string[]).includes(owner));
      if (other !== undefined) {
        return { running: true, healthy: false, models: [], error: `the server at this address names itself ${other}, not ${kind}` };
      }
      return { running: true, healthy: true, models: parsed.models, error: null };
    },
    upstreamPath(appPath) {
      return RELAYED_OPENAI_PATHS.has(appPath) ? `${base}${appPath.slice('/v1'.length)}` : null;
    },
    speaks: (dialect) => dialect === 'openai',
  };
}

export { parseModelList };
