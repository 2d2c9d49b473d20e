import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ThroughputBook } from '../placement/throughput/book.js';
import { predict } from '../placement/throughput/predict.js';
import { peerNode } from '../placement/steps/candidate-fixtures.js';
import { ManualClock } from '../util/clock.js';
import { estimatedPromptTokens, headerBudgetMs } from './header-budget.js';
import { ROUTED_ROUTES } from './route-table.js';
import { bookKeyOf, ThroughputSampler } from './throughput-sampler.js';
import type { BodyFault, WalkSettled } from './walk-types.js';

const CHAT = ROUTED_ROUTES.find((r) => r.path === '/v1/chat/completions')!;
const peer = peerNode('core-6');
/** ~8k estimated tokens (bytes / 4): above the 4,096-token floor, so the answer is timed. */
const BODY_BYTES = 32_768;

function settled(bodyFault: BodyFault | null): WalkSettled {
  return {
    requestId: 'r1',
    model: 'qwen3:8b',
    route: CHAT,
    stream: true,
    bodyBytes: BODY_BYTES,
    budgetMs: 300_000,
    end: 'committed',
    served: peer,
    attempt: 1,
    status: 200,
    headersMs: 400,
    attemptHeadersMs: 400,
    totalMs: 2_000,
    bodyFault,
    verdict: null,
    failures: [],
    stoppedReadingMs: null,
    engineTimings: () => null,
  };
}

function sampleOnce(bodyFault: BodyFault | null): number {
  const book = new ThroughputBook(new ManualClock());
  const sampler = new ThroughputSampler({ book, aloneOn: () => true });
  sampler.onAttempt({ requestId: 'r1', model: 'qwen3:8b', candidate: peer, index: 0 });
  sampler.onSettled(settled(bodyFault));
  return book.readings(bookKeyOf(peer, 'qwen3:8b')).length;
}

describe('ThroughputSampler', () => {
  it("files a clean streamed answer's first byte as a prefill reading", () => {
    assert.equal(sampleOnce(null), 1);
  });

  it('files nothing for an answer of placeholders, so a broken engine never looks fast', () => {
    assert.equal(sampleOnce({ kind: 'output', fault: 'degenerate-output' }), 0);
    assert.equal(sampleOnce({ kind: 'output', fault: 'truncated-upstream' }), 0);
  });

  it('still files the first byte of a stream whose body was cut off after it began', () => {
    assert.equal(sampleOnce({ kind: 'dropped' }), 1);
  });

  it("times a node that answered after a failover from its own attempt, not from the request's arrival", () => {
    const book = new ThroughputBook(new ManualClock());
    const sampler = new ThroughputSampler({ book, aloneOn: () => true });
    sampler.onAttempt({ requestId: 'r1', model: 'qwen3:8b', candidate: peer, index: 0 });
    // The request arrived 305 s before the first byte; this node's own attempt took 5 s of it.
    sampler.onSettled({ ...settled(null), headersMs: 305_000, attemptHeadersMs: 5_000 });
    const [reading] = book.readings(bookKeyOf(peer, 'qwen3:8b'));
    assert.equal(reading?.tokensPerSec, (BODY_BYTES / 4 / 5_000) * 1000);
  });

  it('times the decode of a stream whose engine reports a token count but no generation time from its first byte to its end', () => {
    const decodeOf = (over: Partial<WalkSettled>, alone = true): number | null => {
      const book = new ThroughputBook(new ManualClock());
      const sampler = new ThroughputSampler({ book, aloneOn: () => alone });
      sampler.onAttempt({ requestId: 'r1', model: 'qwen3:8b', candidate: peer, index: 0 });
      const usage = { promptTokens: BODY_BYTES / 4, cachedTokens: null, promptMs: null, completionTokens: 100, decodeMs: null };
      sampler.onSettled({ ...settled(null), engineTimings: () => usage, ...over });
      return book.estimates()[0]?.decodeTokensPerSec ?? null;
    };
    // First byte at 400 ms, end at 2,400 ms: 100 tokens in 2 s.
    assert.equal(decodeOf({ totalMs: 2_400 }), 50);
    // A non-streamed answer's wait holds the prefill too: no decode rate from it.
    assert.equal(decodeOf({ stream: false, totalMs: 2_400 }), null);
    // A stream cut off before its end did not run to the end.
    assert.equal(decodeOf({ bodyFault: { kind: 'dropped' }, totalMs: 2_400 }), null);
    // Every sample's gate: a node generating for others shares its GPU between the streams, and a
    // short prompt is no reading at all.
    assert.equal(decodeOf({ totalMs: 2_400 }, false), null);
    assert.equal(decodeOf({ totalMs: 2_400, bodyBytes: 1_000 }), null);
  });

  it('files a missed deadline in the estimate placement reads, so the same body is predicted at the very budget it missed', () => {
    // Not a multiple of 4: rounded down here and up in placement, the two estimates differ by a token.
    const bodyBytes = 80_002;
    const budgetMs = headerBudgetMs(bodyBytes, 300_000, 50);
    const book = new ThroughputBook(new ManualClock());
    const sampler = new ThroughputSampler({ book, aloneOn: () => true });
    sampler.onAttempt({ requestId: 'r1', model: 'qwen3:8b', candidate: peer, index: 0 });
    sampler.onSettled({
      ...settled(null),
      bodyBytes,
      budgetMs,
      end: 'exhausted',
      served: null,
      attempt: null,
      status: null,
      headersMs: null,
      attemptHeadersMs: null,
      failures: [{ candidate: peer, failure: { kind: 'deadline', budgetMs } }],
    });
    const readings = book.readings(bookKeyOf(peer, 'qwen3:8b'));
    assert.equal(readings[0]?.promptTokens, estimatedPromptTokens(bodyBytes));
    assert.equal(predict(readings, estimatedPromptTokens(bodyBytes), 'observed')?.predictedMs, budgetMs);
  });
});
