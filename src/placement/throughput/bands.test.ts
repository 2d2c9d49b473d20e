import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bandOf, FORGET_AFTER_MS, readBand, recordInBand, SLOW_HALF_LIFE_MS, SLOW_HOLD_MS, type Band, type Reading } from './bands.js';
import { CLOCK_STEP_TOLERANCE_MS } from '../../util/clock.js';

const T0 = Date.UTC(2026, 8, 17, 12);
const reading = (tokensPerSec: number, atMs = T0, promptTokens = 10_600, deadline = false): Reading => ({ promptTokens, tokensPerSec, deadline, atMs });

describe('bandOf: bands double from 4,096 estimated tokens', () => {
  const rows = [
    { tokens: 4095, band: null },
    { tokens: 4096, band: 4096 },
    { tokens: 8191, band: 4096 },
    { tokens: 8192, band: 8192 },
    { tokens: 46_000, band: 32_768 },
    { tokens: Number.NaN, band: null },
  ];
  for (const row of rows) it(`${row.tokens} tokens → ${row.band}`, () => assert.equal(bandOf(row.tokens), row.band));
});

describe('recordInBand and readBand: replace, decay, forget', () => {
  it('the first reading is the band', () => {
    const band = recordInBand(null, reading(123), T0);
    assert.deepEqual(readBand(band, T0), { ...reading(123), fromTokens: 8192 });
  });

  it('slower evidence replaces a band at once', () => {
    const band = recordInBand(recordInBand(null, reading(300), T0), reading(30, T0 + 1000), T0 + 1000);
    assert.equal(readBand(band, T0 + 1000)?.tokensPerSec, 30);
    assert.equal(band.faster, null);
  });

  it('a reading as fast as the band replaces it: the band is that fresh evidence', () => {
    const band = recordInBand(recordInBand(null, reading(300), T0), reading(300, T0 + 1000), T0 + 1000);
    assert.deepEqual(band, { fromTokens: 8192, slow: reading(300, T0 + 1000), faster: null });
  });

  it('a missed deadline holding its band reads as a bound through the last millisecond of the hold', () => {
    const band = recordInBand(recordInBand(null, reading(30, T0, 10_600, true), T0), reading(3000, T0 + 60_000), T0 + 60_000);
    assert.deepEqual(readBand(band, T0 + SLOW_HOLD_MS), { ...reading(30, T0, 10_600, true), fromTokens: 8192 });
  });

  it('once a faster reading takes over, the blend is a rate, not a bound', () => {
    const band = recordInBand(recordInBand(null, reading(30, T0, 10_600, true), T0), reading(3000, T0 + 60_000), T0 + 60_000);
    assert.deepEqual(readBand(band, T0 + SLOW_HOLD_MS + SLOW_HALF_LIFE_MS), {
      fromTokens: 8192,
      promptTokens: 10_600,
      tokensPerSec: 3000 - (3000 - 30) / 2,
      deadline: false,
      atMs: T0,
    });
  });

  it('a faster reading is kept beside the slow one and does not take over during the 30-minute hold', () => {
    const band = recordInBand(recordInBand(null, reading(30), T0), reading(3000, T0 + 60_000), T0 + 60_000);
    assert.equal(readBand(band, T0 + SLOW_HOLD_MS)?.tokensPerSec, 30);
  });

  it("after the hold the slow reading's weight halves every 30 minutes", () => {
    const band = recordInBand(recordInBand(null, reading(30), T0), reading(3000, T0 + 60_000), T0 + 60_000);
    assert.equal(readBand(band, T0 + SLOW_HOLD_MS + SLOW_HALF_LIFE_MS)?.tokensPerSec, 3000 - (3000 - 30) / 2);
    assert.equal(readBand(band, T0 + SLOW_HOLD_MS + 2 * SLOW_HALF_LIFE_MS)?.tokensPerSec, 3000 - (3000 - 30) / 4);
  });

  it('with no faster reading, a slow one stands until it is forgotten', () => {
    const band = recordInBand(null, reading(30), T0);
    assert.equal(readBand(band, T0 + FORGET_AFTER_MS)?.tokensPerSec, 30);
    assert.equal(readBand(band, T0 + FORGET_AFTER_MS + 1), null);
  });

  it('once the slow reading is forgotten the faster one is the band, until it too is forgotten', () => {
    const band = recordInBand(recordInBand(null, reading(30), T0), reading(3000, T0 + 60_000), T0 + 60_000);
    assert.equal(readBand(band, T0 + FORGET_AFTER_MS + 1)?.tokensPerSec, 3000);
    assert.equal(readBand(band, T0 + 60_000 + FORGET_AFTER_MS + 1), null);
  });

  it('a reading into a forgotten band starts it afresh, even if faster', () => {
    const old = recordInBand(null, reading(30), T0);
    const band = recordInBand(old, reading(3000, T0 + FORGET_AFTER_MS + 1), T0 + FORGET_AFTER_MS + 1);
    assert.equal(readBand(band, T0 + FORGET_AFTER_MS + 1)?.tokensPerSec, 3000);
  });
});

describe('readBand after the wall clock is set back', () => {
  // A reading taken before the step lies ahead of the clock; elapsedMs takes it as long past.
  const afterStep = T0 - 2 * 60 * 60_000 + 30 * 60_000;
  const cases: { name: string; band: Band; nowMs: number; expected: number | null }[] = [
    {
      name: 'a slow reading from before a two-hour step is forgotten, not held for as long as the step',
      band: recordInBand(null, reading(30), T0),
      nowMs: afterStep,
      expected: null,
    },
    {
      name: 'a reading from before a step of just over a second is forgotten too',
      band: recordInBand(null, reading(30), T0),
      nowMs: T0 - CLOCK_STEP_TOLERANCE_MS - 1,
      expected: null,
    },
    {
      name: "a reading stamped up to a second after the placement's clock read counts (one recorded while placement awaited residency)",
      band: recordInBand(null, reading(30), T0),
      nowMs: T0 - CLOCK_STEP_TOLERANCE_MS,
      expected: 30,
    },
    {
      name: 'a faster reading taken after the step is the band at once, not kept waiting behind the old slow one',
      band: recordInBand(recordInBand(null, reading(30), T0), reading(500, afterStep), afterStep),
      nowMs: afterStep,
      expected: 500,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(readBand(c.band, c.nowMs)?.tokensPerSec ?? null, c.expected));
});
