/**
 * The deadline for an engine's response headers (spec, Failover). On a streamed request the
 * first byte waits for model load and prompt evaluation, so the budget grows with the prompt:
 * max(HUB_POOL_FIRST_BYTE_TIMEOUT_MS, (bytes / 4) / HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC).
 * A fixed 300 s budget once cancelled a 47k-token turn that was 98 % evaluated.
 *
 * The budget is held at the longest delay a timer keeps (util/timer.ts): past it, undici's header
 * deadline and the Hub's own timers would fire at once, and a large body at a very low assumed
 * prefill rate (HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC down to 0.001) asks for years.
 */
import { MAX_TIMER_DELAY_MS } from '../util/timer.js';

/** Bytes per token the pool's own prompt estimate assumes. */
export const BYTES_PER_ESTIMATED_TOKEN = 4;

export function headerBudgetMs(bodyBytes: number, firstByteTimeoutMs: number, minPrefillTokensPerSec: number): number {
  const estimatedTokens = bodyBytes / BYTES_PER_ESTIMATED_TOKEN;
  return Math.min(MAX_TIMER_DELAY_MS, Math.max(firstByteTimeoutMs, Math.ceil((estimatedTokens / minPrefillTokensPerSec) * 1000)));
}

/**
 * The pool's prompt estimate as the placement rules read it: bytes / 4 of the body as forwarded,
 * rounded up to a whole token. The same figure the budget above is sized from; rounding up
 * changes no decision, since for a whole-number ceiling or cap C, C < bytes / 4 exactly when
 * C < ceil(bytes / 4).
 */
export function estimatedPromptTokens(bodyBytes: number): number {
  return Math.ceil(bodyBytes / BYTES_PER_ESTIMATED_TOKEN);
}
