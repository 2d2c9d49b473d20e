/**
 * Real engines for `cihub demo --real`: two llama.cpp engines on loopback, one per demo Hub, each
 * on a generated random-weight model (created in the model cache on first use). The tiny one has
 * two slots, the medium one (about three times slower) one slot, so placement, queueing and
 * prompt caching all show real measurements. The text they write is noise.
 */
import { startLlamaEngine, type LlamaEngine } from './engine.js';
import { modelName } from './tiny-model.js';

export interface RealEngines {
  /** cihub-tiny:latest, two slots: for the first Hub. */
  readonly tiny: LlamaEngine;
  /** cihub-medium:latest, one slot: for the second Hub. */
  readonly medium: LlamaEngine;
  /** Lines for the demo to print about them. */
  readonly notes: readonly string[];
  close(): Promise<void>;
}

export interface RealEnginesOptions {
  modelDir?: string;
  /** Tokens of context per slot (default 4096). */
  ctx?: number;
}

export async function startRealEngines(opts: RealEnginesOptions = {}): Promise<RealEngines> {
  const common = { ctx: opts.ctx ?? 4096, ...(opts.modelDir === undefined ? {} : { modelDir: opts.modelDir }) };
  const tiny = await startLlamaEngine({ ...common, size: 'tiny', slots: 2 });
  let medium: LlamaEngine;
  try {
    medium = await startLlamaEngine({ ...common, size: 'medium', slots: 1 });
  } catch (err) {
    await tiny.close();
    throw err;
  }
  const line = (e: LlamaEngine): string => `llama.cpp ${e.url}  ${e.modelName}, ${e.slots} slot(s) of ${e.slotCtx} tokens (${e.modelPath})`;
  return {
    tiny,
    medium,
    notes: [
      line(tiny),
      line(medium),
      'These models have random weights (generated here, nothing downloaded): their text is noise.',
      'Timings, token counts and cached-prompt counts are what llama.cpp measured.',
    ],
    async close() {
      await Promise.all([tiny.close(), medium.close()]);
    },
  };
}

/** Requests that show the real engines' behaviour, for the demo's table. */
export function realDemoCalls(): Array<{ label: string; path: string; body: Record<string, unknown> }> {
  const tiny = modelName('tiny');
  const medium = modelName('medium');
  const turn = [{ role: 'user', content: 'tell me about the pool and each node' }];
  return [
    { label: 'OpenAI chat (tiny)', path: '/v1/chat/completions', body: { model: tiny, messages: turn, max_tokens: 24 } },
    { label: 'same prompt again (cached)', path: '/v1/chat/completions', body: { model: tiny, messages: turn, max_tokens: 24 } },
    { label: 'Ollama chat, streamed (tiny)', path: '/api/chat', body: { model: tiny, messages: turn, options: { num_predict: 24 } } },
    {
      label: 'Ollama generate (medium)',
      path: '/api/generate',
      body: { model: medium, prompt: 'why is the queue slow', stream: false, options: { num_predict: 24 } },
    },
    { label: 'Ollama embed (tiny)', path: '/api/embed', body: { model: tiny, input: 'pooling' } },
  ];
}
