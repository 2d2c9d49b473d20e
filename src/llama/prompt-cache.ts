/**
 * Prompt caching on a context sequence. node-llama-cpp's evaluate() appends the tokens it is
 * given after whatever the sequence already holds; it does not diff. So the sequence is first cut
 * back to the prefix it shares with the new prompt, and only the rest is evaluated.
 *
 * A prompt the sequence already holds whole still has its last token evaluated again: sampling
 * needs that token's logits, and they are not kept once the next token has been decoded. This
 * is what llama.cpp's server does too (cache_n is then the prompt length minus one).
 */
import type { LlamaContextSequence, Token } from 'node-llama-cpp';

export interface CachedPrefix {
  /** Prompt tokens reused from the sequence's KV cache. */
  readonly cached: number;
  /** The tokens still to evaluate (never empty for a non-empty prompt). */
  readonly rest: Token[];
}

export async function reuseCachedPrefix(sequence: LlamaContextSequence, prompt: readonly Token[]): Promise<CachedPrefix> {
  if (prompt.length === 0) throw new Error('an empty prompt cannot be evaluated');
  const shared = sequence.compareContextTokens(prompt as Token[]).firstDifferentIndex;
  const cached = Math.min(shared, prompt.length - 1);
  if (cached < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: cached, end: sequence.nextTokenIndex }]);
  return { cached, rest: prompt.slice(cached) };
}
