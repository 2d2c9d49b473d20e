/**
 * GET /v1/models as each engine answers it: the common {id, object, created, owned_by} plus the
 * fields that engine adds (vLLM's ModelCard, llama.cpp's meta, Lemonade's catalogue fields).
 */
import type { SimCore } from './core.js';
import { MODEL_MODIFIED_UNIX_S, ollamaNamespace, type ModelProfile } from './model-profile.js';
import { OPENAI_FLAVORS } from './openai-flavors.js';
import type { ModelRuntime } from './slots.js';

export function modelsList(core: SimCore): Record<string, unknown> {
  return { object: 'list', data: core.models().map((r) => modelCard(core, r)) };
}

export function modelCard(core: SimCore, runtime: ModelRuntime): Record<string, unknown> {
  const p = runtime.profile;
  const ownedBy = core.dialect === 'ollama' ? ollamaNamespace(p.name) : OPENAI_FLAVORS[core.dialect].ownedBy;
  const card: Record<string, unknown> = { id: p.name, object: 'model', created: MODEL_MODIFIED_UNIX_S, owned_by: ownedBy };
  switch (core.dialect) {
    case 'vllm':
      return { ...card, root: p.name, parent: null, max_model_len: core.defaultNumCtx, permission: [vllmPermission(p)] };
    case 'llamacpp':
      return { ...card, meta: llamacppMeta(p) };
    case 'lemonade':
      return {
        ...card,
        checkpoint: `sim/${p.name}:Q4_K_M`,
        recipe: 'llamacpp',
        size: Math.round((p.weightsBytes / 1e9) * 100) / 100,
        downloaded: true,
        suggested: true,
        labels: p.isEmbedding ? ['embeddings'] : p.capabilities.includes('tools') ? ['tool-calling'] : [],
        context_length: runtime.loadedNumCtx() ?? core.defaultNumCtx,
        max_context_window: p.contextLength,
      };
    default:
      return card;
  }
}

function vllmPermission(p: ModelProfile): Record<string, unknown> {
  return {
    id: `modelperm-${p.digest.slice(0, 32)}`,
    object: 'model_permission',
    created: MODEL_MODIFIED_UNIX_S,
    allow_create_engine: false,
    allow_sampling: true,
    allow_logprobs: true,
    allow_search_indices: false,
    allow_view: true,
    allow_fine_tuning: false,
    organization: '*',
    group: null,
    is_blocking: false,
  };
}

function llamacppMeta(p: ModelProfile): Record<string, unknown> {
  return {
    vocab_type: 2,
    n_vocab: 151_936,
    n_ctx_train: p.contextLength,
    n_embd: 4096,
    n_params: Math.round(p.paramsBillions * 1e9),
    size: p.weightsBytes,
  };
}
