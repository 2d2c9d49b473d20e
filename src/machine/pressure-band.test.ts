import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldReading, nextBand, PRESSURE_EWMA_ALPHA, smoothBusy, type PressureBand, type PressureState } from './pressure-band.js';

describe('smoothBusy: the EWMA with alpha 0.4', () => {
  const rows: readonly { name: string; previous: number | null; reading: number; smoothed: number }[] = [
    { name: 'takes the first reading as it is', previous: null, reading: 0.9, smoothed: 0.9 },
    { name: 'moves 40 % of the way to a new reading', previous: 0, reading: 1, smoothed: 0.4 },
    { name: 'moves 40 % of the way down as well', previous: 1, reading: 0, smoothed: 0.6 },
    { name: 'stays put on a reading equal to the average', previous: 0.5, reading: 0.5, smoothed: 0.5 },
  ];
  for (const r of rows) it(r.name, () => assert.ok(Math.abs(smoothBusy(r.previous, r.reading) - r.smoothed) < 1e-12));

  it('reaches about 64 % of a step after two readings (20 s) and 78 % after three (spec: ~30 s to 64 %)', () => {
    let v: number | null = 0;
    v = smoothBusy(v, 1);
    v = smoothBusy(v, 1);
    assert.ok(Math.abs(v - (1 - (1 - PRESSURE_EWMA_ALPHA) ** 2)) < 1e-12);
    assert.ok(v >= 0.63 && v <= 0.65);
  });
});

describe('nextBand: enter at 0.40 / 0.70 / 0.85, leave at 0.35 / 0.65 / 0.80', () => {
  const rows: readonly { name: string; current: PressureBand | null; value: number; band: PressureBand }[] = [
    // A first value is banded from 0 upwards.
    { name: 'a first value under 0.40 is band 0', current: null, value: 0.39, band: 0 },
    { name: 'a first value of exactly 0.40 enters band 1', current: null, value: 0.4, band: 1 },
    { name: 'a first value of 0.70 enters band 2', current: null, value: 0.7, band: 2 },
    { name: 'a first value of 0.85 enters band 3', current: null, value: 0.85, band: 3 },
    // Entering.
    { name: 'band 0 stays at 0.399', current: 0, value: 0.399, band: 0 },
    { name: 'band 0 enters band 1 at 0.40', current: 0, value: 0.4, band: 1 },
    { name: 'band 1 stays at 0.69', current: 1, value: 0.69, band: 1 },
    { name: 'band 1 enters band 2 at 0.70', current: 1, value: 0.7, band: 2 },
    { name: 'band 2 enters band 3 at 0.85', current: 2, value: 0.85, band: 3 },
    { name: 'a rise may skip bands: 0 to 3 in one reading', current: 0, value: 0.9, band: 3 },
    { name: 'a rise may skip bands: 0 to 2 in one reading', current: 0, value: 0.75, band: 2 },
    // The deadband holds a band between its exit and entry thresholds.
    { name: 'band 1 holds at 0.36, above its exit', current: 1, value: 0.36, band: 1 },
    { name: 'band 0 does not enter band 1 at 0.36', current: 0, value: 0.36, band: 0 },
    { name: 'band 2 holds at 0.66', current: 2, value: 0.66, band: 2 },
    { name: 'band 3 holds at 0.81', current: 3, value: 0.81, band: 3 },
    // Leaving.
    { name: 'band 1 leaves at 0.35', current: 1, value: 0.35, band: 0 },
    { name: 'band 2 leaves at 0.65, for band 1', current: 2, value: 0.65, band: 1 },
    { name: 'band 3 leaves at 0.80, for band 2', current: 3, value: 0.8, band: 2 },
    { name: 'a fall walks down one band at a time: 3 at 0.0 goes to 2', current: 3, value: 0, band: 2 },
    { name: 'a fall walks down one band at a time: 2 at 0.0 goes to 1', current: 2, value: 0, band: 1 },
    { name: 'band 0 stays at 0', current: 0, value: 0, band: 0 },
  ];
  for (const r of rows) it(r.name, () => assert.equal(nextBand(r.current, r.value), r.band));
});

describe('foldReading: a busy percentage through the EWMA and the deadband', () => {
  const run = (percents: readonly number[]): PressureState[] => {
    const out: PressureState[] = [];
    let s: PressureState | null = null;
    for (const p of percents) out.push((s = foldReading(s, p)));
    return out;
  };

  it('does not flap on a reading that oscillates across a boundary', () => {
    // Settles in band 1 near 0.40, then oscillates 0.34-0.46 around it: the average stays inside the deadband.
    const bands = run([40, 46, 34, 46, 34, 46, 34, 46, 34]).map((s) => s.band);
    assert.deepEqual(bands, [1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('climbs on a saturated GPU and walks back down one band a reading once it goes idle', () => {
    // Smoothed: 0, .40, .64, .784, .870, then .522, .313, .188, .113, .068.
    const states = run([0, 100, 100, 100, 100, 0, 0, 0, 0, 0]);
    assert.deepEqual(
      states.map((s) => s.band),
      [0, 1, 1, 2, 3, 2, 1, 0, 0, 0],
    );
  });

  it('keeps a real 0 % as band 0 (measured idle), never as no band', () => {
    assert.deepEqual(foldReading(null, 0), { smoothed: 0, band: 0 });
  });
});
