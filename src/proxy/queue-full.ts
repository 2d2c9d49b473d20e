/**
 * Ollama's refusal when its queue is full (protocols.md, Ollama errors: OLLAMA_MAX_QUEUE, 503
 * "server busy, please try again.  maximum pending requests exceeded"). Like 408 and 429 it is
 * the engine talking about its queue, not about the model (spec, "When a node lists a model it
 * cannot actually serve"), so it is no strike toward withholding: a burst past the queue would
 * otherwise withhold a model that serves every request the queue has room for. Other 503s
 * (mlx_lm's Metal out-of-memory, a bare 503) still count.
 */
import { engineErrorMessage } from './request-verdict.js';

export const QUEUE_FULL_STATUS = 503;

/** Bounded like a verdict's gap, never `.*`: the message is an engine's, and untrusted. */
const QUEUE_FULL_PATTERN = /server busy.{0,40}maximum pending requests exceeded/is;

/** Whether an engine's 503 body is its queue-full refusal. */
export function isQueueFull(body: Buffer): boolean {
  const message = engineErrorMessage(body);
  return message !== null && QUEUE_FULL_PATTERN.test(message);
}
