/**
 * How each engine's OpenAI-compatible layer differs on the wire: ids, which keys a chunk carries,
 * where finish_reason goes, whether cached tokens and llama.cpp timings are reported, and error
 * bodies. Everything else about the OpenAI routes is shared.
 *
 * oMLX is not described by upstream sources we read; it is simulated with vLLM's chunk layout and
 * its own owned_by. Lemonade fronts llama-server for GGUF models, so its bodies follow llama.cpp.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Dialect } from './types.js';

export type ErrorKind = 'bad_request' | 'not_found' | 'server';

export interface OpenAIFlavor {
  readonly ownedBy: string;
  readonly sseContentType: string;
  /** Extra keys after id/object/created/model on every chunk and body. */
  readonly baseExtras: Readonly<Record<string, string>>;
  /** First chunk: vLLM sends role + empty content alone; llama.cpp role + null content; Ollama puts role on every delta. */
  readonly roleChunk: 'role-empty-content' | 'role-null-content' | 'role-on-every-delta';
  /** Ollama /v1 and llama.cpp send finish_reason on its own chunk with an empty delta; vLLM on the last content chunk. */
  readonly separateFinishChunk: boolean;
  /** Whether each choice carries `logprobs: null` when none were asked for. */
  readonly chatLogprobs: boolean;
  readonly completionLogprobs: boolean;
  readonly stopReason: boolean;
  readonly timings: boolean;
  /** Whether the model field may be left out (the engine then serves its only or first model). */
  readonly modelOptional: boolean;
  /** vLLM ends an errored stream with [DONE]; llama.cpp and Ollama just stop. */
  readonly doneAfterErrorFrame: boolean;
  chatId(): string;
  completionId(): string;
  notFoundMessage(model: string): string;
  errorBody(status: number, message: string, kind: ErrorKind): unknown;
}

const VLLM_TYPES: Record<ErrorKind, string> = { bad_request: 'BadRequestError', not_found: 'NotFoundError', server: 'InternalServerError' };
const LLAMACPP_TYPES: Record<ErrorKind, string> = { bad_request: 'invalid_request_error', not_found: 'not_found_error', server: 'server_error' };
const OLLAMA_TYPES: Record<ErrorKind, string> = { bad_request: 'invalid_request_error', not_found: 'not_found_error', server: 'api_error' };

const hex32 = (): string => randomUUID().replace(/-/g, '');
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const alnum32 = (): string => [...randomBytes(32)].map((b) => ALNUM[b % ALNUM.length] ?? 'a').join('');
/** llama.cpp reports its build here; a fixed stand-in keeps bodies stable. */
const LLAMACPP_FINGERPRINT = 'b6000-sim0000';

const vllm: OpenAIFlavor = {
  ownedBy: 'vllm',
  sseContentType: 'text/event-stream; charset=utf-8',
  baseExtras: {},
  roleChunk: 'role-empty-content',
  separateFinishChunk: false,
  chatLogprobs: true,
  completionLogprobs: true,
  stopReason: true,
  timings: false,
  modelOptional: true,
  doneAfterErrorFrame: true,
  chatId: () => `chatcmpl-${hex32()}`,
  completionId: () => `cmpl-${hex32()}`,
  notFoundMessage: (model) => `The model \`${model}\` does not exist.`,
  errorBody: (status, message, kind) => ({ error: { message, type: VLLM_TYPES[kind], param: null, code: status } }),
};

const llamacpp: OpenAIFlavor = {
  ownedBy: 'llamacpp',
  sseContentType: 'text/event-stream',
  baseExtras: { system_fingerprint: LLAMACPP_FINGERPRINT },
  roleChunk: 'role-null-content',
  separateFinishChunk: true,
  chatLogprobs: false,
  completionLogprobs: true,
  stopReason: false,
  timings: true,
  modelOptional: true,
  doneAfterErrorFrame: false,
  chatId: () => `chatcmpl-${alnum32()}`,
  completionId: () => `cmpl-${alnum32()}`,
  notFoundMessage: (model) => `model '${model}' not found`,
  errorBody: (status, message, kind) => ({ error: { code: status, message, type: LLAMACPP_TYPES[kind] } }),
};

const ollama: OpenAIFlavor = {
  ownedBy: 'library',
  sseContentType: 'text/event-stream',
  baseExtras: { system_fingerprint: 'fp_ollama' },
  roleChunk: 'role-on-every-delta',
  separateFinishChunk: true,
  chatLogprobs: false,
  completionLogprobs: false,
  stopReason: false,
  timings: false,
  modelOptional: false,
  doneAfterErrorFrame: false,
  // Ollama's ids are small random integers, not unique.
  chatId: () => `chatcmpl-${randomInt(999)}`,
  completionId: () => `cmpl-${randomInt(999)}`,
  notFoundMessage: (model) => `model '${model}' not found`,
  errorBody: (_status, message, kind) => ({ error: { message, type: OLLAMA_TYPES[kind], param: null, code: null } }),
};

export const OPENAI_FLAVORS: Readonly<Record<Dialect, OpenAIFlavor>> = {
  vllm,
  llamacpp,
  ollama,
  lemonade: { ...llamacpp, ownedBy: 'lemonade', modelOptional: false },
  omlx: { ...vllm, ownedBy: 'omlx', modelOptional: false, notFoundMessage: (model) => `model '${model}' not found` },
};
