/**
 * `cihub dev llama`: a real llama.cpp engine (node-llama-cpp) on a generated random-weight model,
 * in the foreground until SIGINT or SIGTERM. It speaks Ollama's native API and its /v1 layer, so
 * a Hub finds it through OLLAMA_URL. One line per finished request tells what the engine measured.
 */
import { startLlamaEngine } from '../llama/engine.js';
import type { RequestRecord } from '../llama/request-log.js';
import { MODEL_SIZES, type ModelSize } from '../llama/tiny-model.js';
import { untilSignalled } from '../util/until-signalled.js';
import { UsageError } from './hub-client.js';
import { step, stepIfModelMissing } from './steps.js';

export interface DevLlamaOptions {
  port: number;
  /** tiny or medium; anything else is refused with a UsageError. */
  modelSize: string;
  slots: number;
  ctx: number;
  host?: string;
  modelDir?: string;
  /** Where the lines go (default stdout). */
  out?: (line: string) => void;
  /** Resolves when the engine should stop (default: SIGINT or SIGTERM). */
  until?: Promise<void>;
}

export function describeRequest(r: RequestRecord): string {
  const ms = (n: number): string => `${n.toFixed(1)}ms`;
  const slot = r.slot === null ? 'embed' : `slot ${r.slot}`;
  return `#${r.id} ${r.route} ${slot} ${r.outcome}: prompt ${r.promptTokens} (cached ${r.cachedTokens}) in ${ms(r.prefillMs)}, ${r.evalCount} generated in ${ms(r.decodeMs)}, queued ${ms(r.queueMs)}`;
}

function modelSizeOf(value: string): ModelSize {
  const size = MODEL_SIZES.find((s) => s === value);
  if (size === undefined) throw new UsageError(`--model-size must be one of ${MODEL_SIZES.join(', ')}; got ${value}.`);
  return size;
}

export async function runDevLlama(opts: DevLlamaOptions): Promise<void> {
  const modelSize = modelSizeOf(opts.modelSize);
  if (!Number.isInteger(opts.ctx) || opts.ctx < 64) throw new UsageError(`--ctx must be at least 64 tokens; got ${opts.ctx}.`);
  const out = opts.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  stepIfModelMissing(modelSize, opts.modelDir);
  step('loading the model into llama.cpp');
  const engine = await startLlamaEngine({
    size: modelSize,
    slots: opts.slots,
    ctx: opts.ctx,
    port: opts.port,
    ...(opts.host === undefined ? {} : { host: opts.host }),
    ...(opts.modelDir === undefined ? {} : { modelDir: opts.modelDir }),
  });
  out(
    `llama engine listening on ${engine.url} model=${engine.modelName} slots=${engine.slots} ctx=${engine.slotCtx} ` +
      `(loaded in ${engine.loadMs.toFixed(0)} ms from ${engine.modelPath}; random weights, the text is noise)`,
  );
  const off = engine.onRequest((r) => out(describeRequest(r)));
  await (opts.until ?? untilSignalled());
  off();
  await engine.close();
}
