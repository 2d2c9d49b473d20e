import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BandReading } from './bands.js';
import { predict, slower, type Prediction } from './predict.js';

const r = (fromTokens: number, promptTokens: number, tokensPerSec: number, deadline = false): BandReading => ({
  fromTokens,
  promptTokens,
  tokensPerSec,
  deadline,
  atMs: 0,
});

describe('predict (spec, "Predicting a prompt larger than anything measured")', () => {
  const rows: readonly { name: string; readings: readonly BandReading[]; tokens: number; expect: Omit<Prediction, 'source'> | null }[] = [
    { name: 'no band at or below the prompt: unmeasured', readings: [r(16_384, 20_000, 100)], tokens: 10_000, expect: null },
    { name: 'nothing measured: unmeasured', readings: [], tokens: 10_000, expect: null },
    {
      name: 'a prompt the size measured: its rate, not extrapolated',
      readings: [r(8192, 10_000, 100)],
      tokens: 10_000,
      expect: { tokensPerSec: 100, fromPromptTokens: 10_000, extrapolated: false, predictedMs: 100_000, deadline: false },
    },
    {
      name: 'a larger prompt: the per-token cost grows by N / measured',
      readings: [r(8192, 10_000, 100)],
      tokens: 20_000,
      expect: { tokensPerSec: 100, fromPromptTokens: 10_000, extrapolated: true, predictedMs: 400_000, deadline: false },
    },
    {
      name: 'never more than threefold growth however much longer (fzzy: 10.6k read at 123 tok/s, asked for 46k)',
      readings: [r(8192, 10_600, 123)],
      tokens: 46_000,
      expect: { tokensPerSec: 123, fromPromptTokens: 10_600, extrapolated: true, predictedMs: Math.round((46_000 / 123) * 3 * 1000), deadline: false },
    },
    {
      name: 'only the nearest band is read forward',
      readings: [r(4096, 5000, 50), r(16_384, 20_000, 400)],
      tokens: 20_000,
      expect: { tokensPerSec: 50, fromPromptTokens: 5000, extrapolated: false, predictedMs: 400_000, deadline: false },
    },
    {
      name: 'never past the slowest reading at or below the size: a faster long reading is bounded by a slower short one',
      readings: [r(4096, 5000, 40), r(16_384, 20_000, 400)],
      tokens: 20_000,
      expect: { tokensPerSec: 40, fromPromptTokens: 5000, extrapolated: false, predictedMs: 500_000, deadline: false },
    },
    {
      name: 'the slowest reading bounds the prediction wherever it sits in the list',
      readings: [r(4096, 5000, 400), r(8192, 9000, 40), r(16_384, 20_000, 300)],
      tokens: 20_000,
      expect: { tokensPerSec: 40, fromPromptTokens: 9000, extrapolated: false, predictedMs: 500_000, deadline: false },
    },
    {
      name: 'the nearest band is the largest at or below the prompt, in whatever order a peer lists its bands',
      readings: [r(16_384, 20_000, 400), r(4096, 5000, 400)],
      tokens: 40_000,
      expect: { tokensPerSec: 400, fromPromptTokens: 20_000, extrapolated: true, predictedMs: 200_000, deadline: false },
    },
    {
      name: 'a band above the prompt is not read (prefill only gets slower as the prompt grows)',
      readings: [r(4096, 5000, 400), r(32_768, 40_000, 10)],
      tokens: 5000,
      expect: { tokensPerSec: 400, fromPromptTokens: 5000, extrapolated: false, predictedMs: 12_500, deadline: false },
    },
    {
      name: 'a prompt exactly at the start of a band is read from that band',
      readings: [r(8192, 10_000, 100)],
      tokens: 8192,
      expect: { tokensPerSec: 100, fromPromptTokens: 10_000, extrapolated: false, predictedMs: 81_920, deadline: false },
    },
    {
      name: 'a prompt smaller than the reading it falls under is not predicted faster than that reading',
      readings: [r(8192, 12_000, 100)],
      tokens: 9000,
      expect: { tokensPerSec: 100, fromPromptTokens: 12_000, extrapolated: false, predictedMs: 90_000, deadline: false },
    },
    { name: 'a reading with no rate (0 tokens/s) is no measurement', readings: [r(8192, 10_000, 0)], tokens: 10_000, expect: null },
    {
      name: 'a shorter reading exactly as slow as the nearest does not displace it',
      readings: [r(4096, 5000, 100), r(16_384, 20_000, 100)],
      tokens: 20_000,
      expect: { tokensPerSec: 100, fromPromptTokens: 20_000, extrapolated: false, predictedMs: 200_000, deadline: false },
    },
    {
      name: 'a missed deadline reads as a bound and says so',
      readings: [r(8192, 10_000, 20, true)],
      tokens: 10_000,
      expect: { tokensPerSec: 20, fromPromptTokens: 10_000, extrapolated: false, predictedMs: 500_000, deadline: true },
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(predict(row.readings, row.tokens, 'observed'), row.expect === null ? null : { ...row.expect, source: 'observed' }));
  }
  it('names the source of the readings it was given', () => {
    const readings = [r(4096, 5000, 100)];
    assert.equal(predict(readings, 5000, 'advertised')?.source, 'advertised');
    assert.equal(predict(readings, 5000, 'observed')?.source, 'observed');
  });
});

describe('slower: a peer cannot advertise its way out of a deadline this node watched it miss', () => {
  const fast: Prediction = { tokensPerSec: 400, fromPromptTokens: 10_000, extrapolated: false, predictedMs: 25_000, deadline: false, source: 'observed' };
  const slow: Prediction = { tokensPerSec: 20, fromPromptTokens: 10_000, extrapolated: false, predictedMs: 500_000, deadline: true, source: 'observed' };
  it('takes the slower of observed and advertised', () => assert.equal(slower(fast, slow), slow));
  it("on a tie keeps the first (the caller passes this node's own observation first)", () => {
    const advertised: Prediction = { ...slow, deadline: false, source: 'advertised' };
    assert.equal(slower(slow, advertised), slow);
  });
  it('takes the one there is when the other is missing', () => {
    assert.equal(slower(null, fast), fast);
    assert.equal(slower(fast, null), fast);
    assert.equal(slower(null, null), null);
  });
});
