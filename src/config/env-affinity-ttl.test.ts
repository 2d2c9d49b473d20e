import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadEnv } from './env.js';

describe('HUB_POOL_PREFIX_AFFINITY_TTL_MS', () => {
  const rows: readonly { name: string; value: string | undefined; expected: number; problem: boolean }[] = [
    { name: 'unset: 10 minutes', value: undefined, expected: 600_000, problem: false },
    { name: 'a whole number of ms is used', value: '120000', expected: 120_000, problem: false },
    { name: 'zero is refused and reported', value: '0', expected: 600_000, problem: true },
    { name: 'a word is refused and reported', value: 'ten minutes', expected: 600_000, problem: true },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const env = loadEnv(r.value === undefined ? {} : { HUB_POOL_PREFIX_AFFINITY_TTL_MS: r.value });
      assert.equal(env.prefixAffinityTtlMs, r.expected);
      assert.equal(
        env.problems.some((p) => p.variable === 'HUB_POOL_PREFIX_AFFINITY_TTL_MS'),
        r.problem,
      );
    });
  }
});
