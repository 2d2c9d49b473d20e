/**
 * A real llama.cpp engine for integration tests, in this test process: the generated tiny
 * model (cached across runs in the OS temp dir), loopback only, one llama.cpp thread. Starting
 * one takes well under a second. It records every response's bytes, so a test can compare what
 * a Hub relayed with what the engine sent, and it logs what it did with each request.
 */
import { startLlamaEngine as start, type LlamaEngine } from '../../src/llama/engine.js';
import type { ModelSize } from '../../src/llama/tiny-model.js';

export type { LlamaEngine } from '../../src/llama/engine.js';
export type { RequestRecord } from '../../src/llama/request-log.js';

export interface LlamaEngineSpec {
  size?: ModelSize;
  slots?: number;
  ctx?: number;
}

export async function startLlamaEngine(spec: LlamaEngineSpec = {}): Promise<LlamaEngine> {
  return start({ size: spec.size ?? 'tiny', slots: spec.slots ?? 1, ctx: spec.ctx ?? 4096, host: '127.0.0.1', port: 0, record: true });
}

/** A request body field that makes generation run to its token limit (end tokens are never sampled). */
export const RUN_TO_LIMIT = { ignore_eos: true } as const;
