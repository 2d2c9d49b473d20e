/**
 * The engine simulator's public surface: start an engine that speaks one engine's wire protocol,
 * steer its faults and read its state.
 */
export { startSimEngine, DEFAULT_SIM_HOST, type SimEngine } from './engine.js';
export type { SimControl } from './control-routes.js';
export {
  DIALECTS,
  FAULT_MODES,
  isDialect,
  type Dialect,
  type FaultMode,
  type SimActiveFault,
  type SimEngineOptions,
  type SimFault,
  type SimModelOptions,
  type SimModelState,
  type SimState,
} from './types.js';
export {
  DEFAULT_ANSWER_TOKENS,
  DEFAULT_DECODE_TPS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_LOAD_MS,
  DEFAULT_NUM_CTX,
  DEFAULT_PREFILL_TPS,
  DEFAULT_SLOTS,
} from './model-profile.js';
export { CHARS_PER_TOKEN, UNUSED_TOKEN, countTokens } from './tokens.js';
