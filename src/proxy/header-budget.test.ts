import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_MIN_PREFILL_TOKENS_PER_SEC } from '../config/env.js';
import { BYTES_PER_ESTIMATED_TOKEN, estimatedPromptTokens, headerBudgetMs } from './header-budget.js';

describe('headerBudgetMs: max(first-byte timeout, bytes/4 ÷ tok/s)', () => {
  const cases: readonly { name: string; bytes: number; timeoutMs?: number; tps?: number; budgetMs: number }[] = [
    { name: 'an empty body gets the 300 s floor', bytes: 0, budgetMs: 300_000 },
    { name: 'a small chat turn gets the 300 s floor', bytes: 4_000, budgetMs: 300_000 },
    { name: 'exactly at the crossover (60 KB = 15k tokens = 300 s) stays at the floor', bytes: 60_000, budgetMs: 300_000 },
    { name: 'just past the crossover grows with the prompt', bytes: 60_004, budgetMs: 300_020 },
    { name: 'a 160 KB agent turn at defaults gets 800 s', bytes: 160_000, budgetMs: 800_000 },
    { name: 'a 184 KB turn gets 920 s', bytes: 184_000, budgetMs: 920_000 },
    { name: 'a larger floor wins over a small prompt', bytes: 160_000, timeoutMs: 900_000, budgetMs: 900_000 },
    { name: 'a slower assumed prefill stretches the budget', bytes: 160_000, tps: 25, budgetMs: 1_600_000 },
    { name: 'a faster assumed prefill falls back to the floor', bytes: 160_000, tps: 200, budgetMs: 300_000 },
    { name: 'a fractional estimate rounds up to a whole millisecond', bytes: 1, timeoutMs: 1, tps: 3, budgetMs: 84 },
    { name: 'a budget past what a timer can keep is held there', bytes: 64 * 1024 * 1024, tps: 0.001, budgetMs: 2_147_483_647 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(headerBudgetMs(c.bytes, c.timeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS, c.tps ?? DEFAULT_MIN_PREFILL_TOKENS_PER_SEC), c.budgetMs);
    });
  }

  it('estimates four bytes per token, the same figure prompt ceilings use', () => {
    assert.equal(BYTES_PER_ESTIMATED_TOKEN, 4);
  });
});

describe('estimatedPromptTokens: the prompt estimate placement reads, bytes / 4 rounded up', () => {
  const cases: readonly { bytes: number; tokens: number }[] = [
    { bytes: 0, tokens: 0 },
    { bytes: 1, tokens: 1 },
    { bytes: 4, tokens: 1 },
    { bytes: 5, tokens: 2 },
    { bytes: 4_000, tokens: 1_000 },
    { bytes: 60_001, tokens: 15_001 },
  ];
  for (const c of cases) {
    it(`estimates ${c.bytes} bytes as ${c.tokens} tokens`, () => assert.equal(estimatedPromptTokens(c.bytes), c.tokens));
  }
});
