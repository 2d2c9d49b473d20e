/**
 * Asks one engine what it says about its own work, by kind:
 * - vLLM: GET /metrics (Prometheus text), its running and waiting gauges;
 * - llama.cpp's server: GET /slots, the slot count and the slots processing;
 * - Ollama, Lemonade and oMLX: nothing (null), they publish no per-request figure the Hub reads.
 *   Ollama's /api/ps names the models loaded, not a queue, and is read only while a model is
 *   withheld there (spec, "Withholding": an untroubled node's health poll stays one request).
 * Each read is bounded in bytes and time and never throws: a failure of any kind is null,
 * "the engine did not say", never a zero.
 */
import type { Dispatcher } from 'undici';
import { parseJsonOrUndefined } from '../util/bounded-read.js';
import type { EngineKind } from './engine-kind.js';
import type { EngineQueueReport } from './engine-queue.js';
import { parseLlamaSlots } from './llamacpp-slots.js';
import { getBytes } from './probe-fetch.js';
import { parseVllmQueue } from './vllm-metrics.js';

/**
 * Longest one report may take, headers and body: 2 s. The report is read in the background and
 * never waited for by a request; the bound keeps a silent port from holding a read open for
 * the 5 s probe budget on every refresh.
 */
export const QUEUE_REPORT_TIMEOUT_MS = 2_000;
/**
 * Largest /metrics text read: 4 MiB. vLLM's is tens of KiB per served model (most of it
 * histogram buckets); a larger answer is not read at all.
 */
export const VLLM_METRICS_MAX_BYTES = 4 * 1024 * 1024;
/** Largest /slots answer read: 1 MiB (a slot object is 1-3 KiB, mostly its sampling params). */
export const LLAMACPP_SLOTS_MAX_BYTES = 1024 * 1024;

export type EngineQueueReader = (baseUrl: string, dispatcher: Dispatcher, signal: AbortSignal) => Promise<EngineQueueReport | null>;

const vllm: EngineQueueReader = async (baseUrl, dispatcher, signal) => {
  const res = await getBytes(`${baseUrl}/metrics`, dispatcher, signal, VLLM_METRICS_MAX_BYTES, QUEUE_REPORT_TIMEOUT_MS);
  if (!res.ok) return null;
  const queue = parseVllmQueue(res.bytes.toString('utf8'));
  return queue === null ? null : { running: queue.running, waiting: queue.waiting, slots: null };
};

const llamacpp: EngineQueueReader = async (baseUrl, dispatcher, signal) => {
  const res = await getBytes(`${baseUrl}/slots`, dispatcher, signal, LLAMACPP_SLOTS_MAX_BYTES, QUEUE_REPORT_TIMEOUT_MS);
  if (!res.ok) return null;
  const slots = parseLlamaSlots(parseJsonOrUndefined(res.bytes));
  return slots === null ? null : { running: slots.busy, waiting: null, slots: slots.slots };
};

/** The reader for each engine kind; null where the engine publishes nothing the Hub reads. */
export const QUEUE_READERS: Readonly<Record<EngineKind, EngineQueueReader | null>> = {
  vllm,
  llamacpp,
  ollama: null,
  lemonade: null,
  omlx: null,
};

/** One reader's answer, with anything it throws (a bug, or an answer nobody foresaw) read as not reported. */
export async function readEngineQueue(kind: EngineKind, baseUrl: string, dispatcher: Dispatcher, signal: AbortSignal): Promise<EngineQueueReport | null> {
  const reader = QUEUE_READERS[kind];
  if (reader === null) return null;
  try {
    return await reader(baseUrl, dispatcher, signal);
  } catch {
    return null;
  }
}
