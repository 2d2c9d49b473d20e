import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineTimings } from '../../proxy/walk-timings.js';
import { decodeRate, prefillReading, type AttemptFacts, type PrefillReading } from './sample.js';

const timings = (over: Partial<EngineTimings>): EngineTimings => ({
  promptTokens: null,
  cachedTokens: null,
  promptMs: null,
  completionTokens: null,
  decodeMs: null,
  ...over,
});
const base: AttemptFacts = {
  completion: true,
  estimatedTokens: 10_000,
  stream: true,
  idle: true,
  headersMs: 20_000,
  missedDeadline: false,
  budgetMs: 327_000,
  timings: null,
};

describe('prefillReading (spec, "What is measured")', () => {
  const rows: readonly { name: string; facts: Partial<AttemptFacts>; expect: PrefillReading | null }[] = [
    {
      name: 'a streamed turn without engine timings is timed to its first byte',
      facts: {},
      expect: { promptTokens: 10_000, tokensPerSec: 500, deadline: false },
    },
    {
      name: "the engine's own prompt time wins over the first byte (it leaves out load and queue)",
      facts: { timings: timings({ promptMs: 5000 }) },
      expect: { promptTokens: 10_000, tokensPerSec: 2000, deadline: false },
    },
    { name: 'a non-streamed answer without timings gives nothing: its wait was the whole generation', facts: { stream: false }, expect: null },
    {
      name: 'a non-streamed answer with timings is timed on them',
      facts: { stream: false, timings: timings({ promptMs: 10_000 }) },
      expect: { promptTokens: 10_000, tokensPerSec: 1000, deadline: false },
    },
    { name: 'under 4,096 estimated tokens nothing is measured', facts: { estimatedTokens: 4095 }, expect: null },
    {
      name: 'a prompt of exactly 4,096 estimated tokens is measured',
      facts: { estimatedTokens: 4096 },
      expect: { promptTokens: 4096, tokensPerSec: (4096 / 20_000) * 1000, deadline: false },
    },
    { name: 'a first byte at 0 ms is no timing', facts: { headersMs: 0 }, expect: null },
    { name: 'an engine prompt time of 0 ms is no timing', facts: { stream: false, timings: timings({ promptMs: 0 }) }, expect: null },
    { name: 'embeddings are never measured', facts: { completion: false }, expect: null },
    { name: 'a node with something else in flight is not measured (a queue is not slow hardware)', facts: { idle: false }, expect: null },
    {
      name: "a cache hit is not a read: Ollama 0.34.4's repeated 7,615-token prompt (1 token read in 19 ms) gives nothing",
      facts: { timings: timings({ promptTokens: 7615, cachedTokens: 7614, promptMs: 19 }) },
      expect: null,
    },
    {
      name: 'an append is a read: 1,484 tokens read of an 11,820-token history in 427 ms counts, on the part read',
      facts: { estimatedTokens: 13_304, timings: timings({ promptTokens: 13_304, cachedTokens: 11_820, promptMs: 427 }) },
      expect: { promptTokens: 13_304, tokensPerSec: (1484 / 427) * 1000, deadline: false },
    },
    {
      name: 'usage cached_tokens on an OpenAI route (no engine prompt time): timed to the first byte on the part read',
      facts: { timings: timings({ promptTokens: 10_000, cachedTokens: 5000 }) },
      expect: { promptTokens: 10_000, tokensPerSec: 250, deadline: false },
    },
    {
      name: 'a turn that read exactly 1,024 tokens past its cache counts',
      facts: { timings: timings({ promptTokens: 10_000, cachedTokens: 8976, promptMs: 1000 }) },
      expect: { promptTokens: 10_000, tokensPerSec: 1024, deadline: false },
    },
    {
      name: 'an engine that reports a cache but 0 prompt tokens is timed as before',
      facts: { timings: timings({ promptTokens: 0, cachedTokens: 0, promptMs: 10_000 }) },
      expect: { promptTokens: 10_000, tokensPerSec: 1000, deadline: false },
    },
    {
      name: 'an engine that does not report its cache is timed as before',
      facts: { timings: timings({ promptTokens: 10_000, promptMs: 10_000 }) },
      expect: { promptTokens: 10_000, tokensPerSec: 1000, deadline: false },
    },
    {
      name: 'a streamed request that missed its deadline is "at least this slow"',
      facts: { missedDeadline: true, headersMs: null },
      expect: { promptTokens: 10_000, tokensPerSec: (10_000 / 327_000) * 1000, deadline: true },
    },
    { name: 'a missed deadline with no budget (0 ms) gives nothing', facts: { missedDeadline: true, headersMs: null, budgetMs: 0 }, expect: null },
    {
      name: 'a non-streamed missed deadline gives nothing (its budget covered the generation)',
      facts: { missedDeadline: true, stream: false, headersMs: null },
      expect: null,
    },
    {
      name: 'a rate no engine reaches is a timing artefact, not a reading (an engine rounding its prompt time to next to nothing)',
      facts: { timings: timings({ promptMs: 0.0003 }) },
      expect: null,
    },
  ];
  for (const row of rows) it(row.name, () => assert.deepEqual(prefillReading({ ...base, ...row.facts }), row.expect));
});

describe('decodeRate', () => {
  const rows: readonly { name: string; timings: EngineTimings | null; streamedMs?: number | null; rate: number | null }[] = [
    { name: "the engine's own generation rate", timings: timings({ completionTokens: 100, decodeMs: 2000 }), rate: 50 },
    {
      name: "the engine's own generation time wins over the stream's",
      timings: timings({ completionTokens: 100, decodeMs: 2000 }),
      streamedMs: 4000,
      rate: 50,
    },
    {
      name: 'no engine generation time (usage on an OpenAI-compatible stream): the stream from its first byte to its end',
      timings: timings({ completionTokens: 100 }),
      streamedMs: 4000,
      rate: 25,
    },
    { name: 'a stream of 0 ms: none', timings: timings({ completionTokens: 100 }), streamedMs: 0, rate: null },
    { name: 'a stream with no token count: none', timings: timings({ promptTokens: 10_000 }), streamedMs: 4000, rate: null },
    { name: 'no timings at all: none', timings: null, rate: null },
    { name: 'no decode time and not a stream: none', timings: timings({ completionTokens: 100 }), rate: null },
    { name: 'no token count: none', timings: timings({ decodeMs: 2000 }), rate: null },
    { name: 'a decode time of 0 ms: none', timings: timings({ completionTokens: 100, decodeMs: 0 }), rate: null },
    { name: 'no tokens generated: none, not a rate of 0', timings: timings({ completionTokens: 0, decodeMs: 2000 }), rate: null },
    { name: 'a rate no engine reaches: none', timings: timings({ completionTokens: 100, decodeMs: 0.000_001 }), rate: null },
  ];
  for (const row of rows) it(row.name, () => assert.equal(decodeRate(row.timings, row.streamedMs ?? null), row.rate));
});
