/**
 * POST /v1/embeddings for every dialect: vectors per input, with vLLM's id and created fields
 * where vLLM sends them, and base64 float32 encoding on request.
 */
import { randomUUID } from 'node:crypto';
import { admit } from './admission.js';
import type { SimCore } from './core.js';
import { runPrefillOnly } from './generation.js';
import { isAbortError, sendJson, type Exchange } from './http-io.js';
import { faultBody, openaiError, openaiTarget } from './openai-request.js';
import { embedText } from './tokens.js';

export async function embeddings(core: SimCore, ex: Exchange, body: Buffer): Promise<void> {
  const target = openaiTarget(core, ex, body);
  if (target === null) return;
  const { obj, runtime, shownModel } = target;
  const inputs = embeddingInputs(obj['input']);
  if (inputs === null) {
    core.countRequest(runtime);
    return void openaiError(core, ex, 400, 'input must be a string or an array of strings', 'bad_request');
  }
  const flags = await admit(core, ex, runtime, (status) => faultBody(core, status));
  if (flags === null) return;
  try {
    const r = await runPrefillOnly({
      runtime,
      input: inputs.join(''),
      numCtx: core.defaultNumCtx,
      keepAliveMs: undefined,
      signal: ex.signal,
      scale: core.scale,
    });
    const base64 = obj['encoding_format'] === 'base64';
    const data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: encode(embedText(text), base64) }));
    const usage = { prompt_tokens: r.promptTokens, total_tokens: r.promptTokens };
    if (core.dialect === 'vllm' || core.dialect === 'omlx') {
      const created = Math.floor(Date.now() / 1000);
      return sendJson(ex.res, 200, {
        id: `embd-${randomUUID().replace(/-/g, '')}`,
        object: 'list',
        created,
        model: shownModel,
        data,
        usage: { ...usage, completion_tokens: 0 },
      });
    }
    sendJson(ex.res, 200, { object: 'list', data, model: shownModel, usage });
  } catch (err) {
    if (!isAbortError(err)) openaiError(core, ex, 500, err instanceof Error ? err.message : String(err), 'server');
  }
}

function embeddingInputs(input: unknown): string[] | null {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return null;
  // Token-id arrays (vLLM, llama.cpp) are embedded by their ids' text.
  if (input.every((i) => typeof i === 'number')) return [input.join(' ')];
  const out: string[] = [];
  for (const item of input) {
    if (typeof item === 'string') out.push(item);
    else if (Array.isArray(item) && item.every((i) => typeof i === 'number')) out.push(item.join(' '));
    else return null;
  }
  return out;
}

/** encoding_format "base64" carries little-endian float32 bytes. */
function encode(vector: number[], base64: boolean): number[] | string {
  if (!base64) return vector;
  const buf = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => buf.writeFloatLE(v, i * 4));
  return buf.toString('base64');
}
