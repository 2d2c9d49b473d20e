/**
 * Health and introspection routes of the OpenAI-compatible engines: vLLM's empty-bodied /health
 * and its Prometheus /metrics, llama.cpp's /health, /props and /slots, oMLX's /health,
 * Lemonade's /live and /health.
 */
import type { RouteHandler, SimCore } from './core.js';
import { sendJson, sendRaw, type Exchange } from './http-io.js';
import { OPENAI_FLAVORS } from './openai-flavors.js';
import type { ModelRuntime } from './slots.js';
import type { Dialect } from './types.js';

const OK = { status: 'ok' };
const LEMONADE_VERSION = '9.3.3';
/** Lemonade's child llama-server ports start here. */
const LEMONADE_BACKEND_BASE_PORT = 8001;

export const HEALTH_ROUTES: Readonly<Record<Exclude<Dialect, 'ollama'>, Readonly<Record<string, RouteHandler>>>> = {
  vllm: {
    // vLLM answers an empty 200 with no content type.
    'GET /health': async (_core, ex) => void ex.res.writeHead(200, { 'Content-Length': 0 }).end(),
    'GET /metrics': async (core, ex) => sendRaw(ex.res, 200, vllmMetrics(core), PROMETHEUS_TEXT),
  },
  llamacpp: {
    'GET /health': async (_core, ex) => sendJson(ex.res, 200, OK),
    'GET /v1/health': async (_core, ex) => sendJson(ex.res, 200, OK),
    'GET /props': async (core, ex) => withModel(core, ex, (r) => sendJson(ex.res, 200, props(core, r))),
    'GET /slots': async (core, ex) => withModel(core, ex, (r) => sendJson(ex.res, 200, slots(core, r))),
  },
  omlx: {
    'GET /health': async (_core, ex) => sendJson(ex.res, 200, OK),
  },
  lemonade: {
    'GET /live': async (_core, ex) => sendJson(ex.res, 200, OK),
    // Lemonade's other version prefixes (/api/v1, /api/v0, /v0) reach here rewritten to /v1.
    'GET /v1/health': async (core, ex) => sendJson(ex.res, 200, lemonadeHealth(core)),
  },
};

/** llama.cpp serves one model; with several, `?model=` picks which one /props and /slots describe. */
function withModel(core: SimCore, ex: Exchange, answer: (r: ModelRuntime) => void): void {
  const requested = ex.url.searchParams.get('model');
  const runtime = requested === null ? core.models()[0] : core.find(requested);
  if (runtime === undefined) {
    const name = requested ?? '';
    return sendJson(ex.res, 404, OPENAI_FLAVORS.llamacpp.errorBody(404, `model '${name}' not found`, 'not_found'));
  }
  answer(runtime);
}

function props(core: SimCore, r: ModelRuntime): Record<string, unknown> {
  return {
    default_generation_settings: { id: 0, n_ctx: core.defaultNumCtx, is_processing: false, params: { n_predict: -1 } },
    total_slots: r.profile.slots,
    model_path: `/models/${r.profile.name}.gguf`,
    modalities: { vision: false },
    build_info: 'b6000-sim0000',
    is_sleeping: false,
  };
}

function slots(core: SimCore, r: ModelRuntime): Record<string, unknown>[] {
  return r.slotBusy().map((busy, id) => ({
    id,
    id_task: busy ? id + 1 : -1,
    n_ctx: core.defaultNumCtx,
    speculative: false,
    is_processing: busy,
    params: { n_predict: -1 },
    next_token: { has_next_token: busy, has_new_line: false, n_remain: -1, n_decoded: 0 },
  }));
}

/** The content type prometheus_client serves its text exposition format with. */
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * vLLM's /metrics as its V1 engine writes it: process metrics first, then each `vllm:` metric
 * with its HELP and TYPE lines and one series per served model, labelled engine="0" and
 * model_name. The scheduler gauges are live: running is what holds a slot, waiting what queues.
 */
function vllmMetrics(core: SimCore): string {
  const models = core.models();
  const series = (name: string, help: string, type: string, value: (r: ModelRuntime) => number): string[] => [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} ${type}`,
    ...models.map((r) => `${name}{engine="0",model_name="${r.profile.name.replace(/["\\]/g, (c) => `\\${c}`)}"} ${value(r).toFixed(1)}`),
  ];
  return [
    '# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.',
    '# TYPE process_start_time_seconds gauge',
    `process_start_time_seconds ${(core.startedAtMs / 1000).toFixed(2)}`,
    ...series('vllm:num_requests_running', 'Number of requests in model execution batches.', 'gauge', (r) => r.inFlight),
    ...series('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', 'gauge', (r) => r.queued),
    ...series('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', 'gauge', (r) => r.inFlight / Math.max(1, r.profile.slots)),
    ...series('vllm:request_success_total', 'Count of successfully processed requests.', 'counter', (r) => r.requests - r.aborted),
    '',
  ].join('\n');
}

function lemonadeHealth(core: SimCore): Record<string, unknown> {
  const loaded = core.models().filter((r) => r.loadedNumCtx() !== null);
  const latest = [...loaded].sort((a, b) => b.lastUseMs - a.lastUseMs)[0];
  return {
    status: 'ok',
    version: LEMONADE_VERSION,
    model_loaded: latest?.profile.name ?? null,
    all_models_loaded: loaded.map((r, i) => ({
      model_name: r.profile.name,
      checkpoint: `sim/${r.profile.name}:Q4_K_M`,
      last_use: r.lastUseMs / 1000,
      type: r.profile.isEmbedding ? 'embedding' : 'llm',
      device: r.profile.vramFraction < 1 ? 'cpu gpu' : 'gpu',
      pinned: false,
      is_busy: r.inFlight > 0,
      is_streaming: r.inFlight > 0,
      recipe: 'llamacpp',
      recipe_options: { ctx_size: r.loadedNumCtx() ?? core.defaultNumCtx },
      backend_url: `http://127.0.0.1:${LEMONADE_BACKEND_BASE_PORT + i}/v1`,
      pid: 40_000 + i,
    })),
    max_models: { llm: core.models().length, embedding: 1, reranking: 1, transcription: 1, image: 1, tts: 1 },
    update_check_done: true,
  };
}
