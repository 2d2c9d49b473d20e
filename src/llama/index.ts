/**
 * A real inference engine for tests and the demo: llama.cpp (through node-llama-cpp) on models
 * this project generates, speaking Ollama's native API and its OpenAI-compatible layer.
 */
export { startLlamaEngine, DEFAULT_CTX, DEFAULT_LLAMA_HOST, DEFAULT_SLOTS, type LlamaEngine, type LlamaEngineOptions } from './engine.js';
export { startRealEngines, realDemoCalls, type RealEngines, type RealEnginesOptions } from './real-engines.js';
export { ensureModel, modelName, MODEL_SIZES, MODEL_SPECS, DEFAULT_MODEL_DIR, type ModelSize, type GeneratedModel } from './tiny-model.js';
export type { RequestRecord, RequestOutcome } from './request-log.js';
export type { RecordedExchange } from './server.js';
