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
  it('takes each field from the latest frame that has it (llama.cpp timings beside OpenAI usage)', () => {
    const frames = [
      { usage: { prompt_tokens: 1, completion_tokens: 1 } },
      { timings: { prompt_n: 900, prompt_ms: 120.5, cache_n: 100 } },
      { usage: { prompt_tokens: 1000, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 100 } } },
    ];
    assert.deepEqual(readEngineTimings(frames), { promptTokens: 1000, cachedTokens: 100, promptMs: 120.5, completionTokens: 20, decodeMs: null });
  });
  it('reads nothing it cannot trust: negative, non-numeric or absent fields are null, and no timings at all is null', () => {
    assert.equal(readEngineTimings([null, 'x', { prompt_eval_count: -1, eval_count: '5' }]), null);
  });
});
