import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readEngineTimings } from './walk-timings.js';

describe('readEngineTimings', () => {
  it("reads Ollama's final frame, durations in nanoseconds", () => {
    assert.deepEqual(
      readEngineTimings([{ done: true, prompt_eval_count: 4096, prompt_eval_duration: 2_000_000_000, eval_count: 10, eval_duration: 500_000_000 }]),
      {
        promptTokens: 4096,
        cachedTokens: null,
        promptMs: 2000,
        completionTokens: 10,
        decodeMs: 500,
      },
    );
  });
  it("reads a newer Ollama's cached count beside a prompt_eval_count that counts the whole prompt", () => {
    // The repeated 7,615-token prompt on Ollama 0.34.4: the same count as the cold read, 19 ms.
    const frame = { done: true, prompt_eval_count: 7615, prompt_eval_cached_count: 7614, prompt_eval_duration: 19_000_000 };
    assert.deepEqual(readEngineTimings([frame]), { promptTokens: 7615, cachedTokens: 7614, promptMs: 19, completionTokens: null, decodeMs: null });
  });
  it("reads the cached tokens Ollama's /v1 reports in usage, as any OpenAI-compatible route does", () => {
    const usage = { prompt_tokens: 7615, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 7614 } };
    assert.deepEqual(readEngineTimings([{ choices: [], usage }]), {
      promptTokens: 7615,
      cachedTokens: 7614,
      promptMs: null,
      completionTokens: 12,
      decodeMs: null,
    });
  });
  it('takes each field from the latest frame that has it (llama.cpp timings beside OpenAI usage)', () => {
    const frames = [
      { usage: { prompt_tokens: 1, completion_tokens: 1 } },
      { timings: { prompt_n: 900, prompt_ms: 120.5, cache_n: 100 } },
      { usage: { prompt_tokens: 1000, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 100 } } },
    ];
    assert.deepEqual(readEngineTimings(frames), { promptTokens: 1000, cachedTokens: 100, promptMs: 120.5, completionTokens: 20, decodeMs: null });
  });
  describe("llama.cpp's timings alone (a stream without include_usage): the prompt is cache_n + prompt_n", () => {
    const rows: readonly { name: string; timings: Record<string, unknown>; promptTokens: number | null; cachedTokens: number | null }[] = [
      { name: 'an append to a longer cached history', timings: { cache_n: 9000, prompt_n: 3000, prompt_ms: 1500 }, promptTokens: 12_000, cachedTokens: 9000 },
      { name: 'an append to a shorter cached history', timings: { cache_n: 3000, prompt_n: 9000, prompt_ms: 4500 }, promptTokens: 12_000, cachedTokens: 3000 },
      { name: 'a cold prompt', timings: { cache_n: 0, prompt_n: 5000, prompt_ms: 2500 }, promptTokens: 5000, cachedTokens: 0 },
      { name: 'a build that reports no cache_n', timings: { prompt_n: 5000, prompt_ms: 2500 }, promptTokens: 5000, cachedTokens: null },
      { name: 'a cache_n without a prompt_n', timings: { cache_n: 5000, prompt_ms: 2500 }, promptTokens: null, cachedTokens: 5000 },
      { name: 'a cache_n that is not a count', timings: { cache_n: -1, prompt_n: 5000, prompt_ms: 2500 }, promptTokens: 5000, cachedTokens: null },
    ];
    for (const row of rows)
      it(row.name, () => {
        const frames = [{ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], timings: row.timings }];
        const read = readEngineTimings(frames);
        assert.equal(read?.promptTokens, row.promptTokens);
        assert.equal(read?.cachedTokens, row.cachedTokens);
      });
    it('agrees with the usage chunk when the stream carries one', () => {
      const timings = { cache_n: 9000, prompt_n: 3000, prompt_ms: 1500 };
      const usage = { prompt_tokens: 12_000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 9000 } };
      for (const frames of [
        [{ timings }, { choices: [], usage }],
        [{ choices: [], usage }, { timings }],
      ])
        assert.deepEqual(readEngineTimings(frames), { promptTokens: 12_000, cachedTokens: 9000, promptMs: 1500, completionTokens: 5, decodeMs: null });
    });
  });
  it('reads nothing it cannot trust: negative, non-numeric or absent fields are null, and no timings at all is null', () => {
    assert.equal(readEngineTimings([null, 'x', { prompt_eval_count: -1, eval_count: '5' }]), null);
  });
});
