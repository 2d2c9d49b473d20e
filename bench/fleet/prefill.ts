/**
 * How long an engine takes to read a prompt (the node model's physics, not a placement rule).
 * Attention makes the cost of a token grow with its position: c(x) = (1 + x / G) / r, with r
 * the short-context rate and G the context at which the cost has doubled. Reading positions
 * a..b costs the integral, ((b - a) + (b² - a²) / 2G) / r. A cached prefix of a tokens is free,
 * and the tokens after it are read at their real (later, dearer) positions.
 *
 * Calibration (spec, "Throughput-aware placement"): fzzy's per-token cost more than doubled
 * between 10.6k and 46k tokens, which G ≈ 19k gives; beta-max fell only from 192 to 157 tok/s
 * across 47k, which G ≈ 186k gives.
 */
export function prefillMs(fromTokens: number, toTokens: number, tokensPerSec: number, growthTokens: number): number {
  if (toTokens <= fromTokens) return 0;
  const linear = toTokens - fromTokens;
  const quadratic = (toTokens * toTokens - fromTokens * fromTokens) / (2 * growthTokens);
  return ((linear + quadratic) / tokensPerSec) * 1000;
}

/** The average rate a cold read of `tokens` runs at, pool tokens per second. */
export function averageRate(tokens: number, tokensPerSec: number, growthTokens: number): number {
  return tokens / (prefillMs(0, tokens, tokensPerSec, growthTokens) / 1000);
}
