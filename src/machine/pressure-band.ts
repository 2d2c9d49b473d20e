/**
 * The GPU-pressure band (spec, "GPU pressure: a second load signal", "How it is measured"):
 * each reading of the GPU's busy fraction is smoothed with an EWMA, and the smoothed value is
 * quantised into an integer band 0-3 with a deadband, so a value hovering at a boundary does
 * not change the number every peer ranks on from one sample to the next.
 *
 * Pure: the sampler (pressure-sampler.ts) feeds readings in and publishes the result.
 */

/** A band: 0 idle, 3 committed. A node that cannot measure has no band at all (null), never 0. */
export type PressureBand = 0 | 1 | 2 | 3;

/** Weight of the newest reading in the EWMA (spec: α = 0.4; about 30 s to 64 % of a step at one reading per 10 s). */
export const PRESSURE_EWMA_ALPHA = 0.4;

/**
 * Smoothed busy fraction at which each band is entered, index = band (spec: 0.40 / 0.70 / 0.85).
 * Band 0 has no entry threshold.
 */
export const PRESSURE_ENTER_AT = [0, 0.4, 0.7, 0.85] as const;
/**
 * Smoothed busy fraction at or below which each band is left for the one below, index = band
 * (spec: 0.35 / 0.65 / 0.80, five points under each entry).
 */
export const PRESSURE_LEAVE_AT = [0, 0.35, 0.65, 0.8] as const;

/** Where the smoother stands after a reading. */
export interface PressureState {
  /** The EWMA of the busy fraction, 0-1. */
  readonly smoothed: number;
  readonly band: PressureBand;
}

/** The EWMA step: the first reading is taken as it is; later ones move the average by α of the difference. */
export function smoothBusy(previous: number | null, reading: number): number {
  return previous === null ? reading : PRESSURE_EWMA_ALPHA * reading + (1 - PRESSURE_EWMA_ALPHA) * previous;
}

/** The highest band whose entry threshold the value reaches. */
function bandEntered(value: number): PressureBand {
  for (let band = PRESSURE_ENTER_AT.length - 1; band > 0; band--) if (value >= PRESSURE_ENTER_AT[band]!) return band as PressureBand;
  return 0;
}

/**
 * The band after a smoothed value. A rise goes straight to the highest band entered (it may
 * skip bands); a fall leaves the current band only once the value is at or under that band's
 * exit threshold, and then only for the band below, one step per reading. Between the two
 * thresholds the band stays where it was.
 */
export function nextBand(current: PressureBand | null, value: number): PressureBand {
  const entered = bandEntered(value);
  if (current === null || entered > current) return entered;
  if (current > 0 && value <= PRESSURE_LEAVE_AT[current]!) return (current - 1) as PressureBand;
  return current;
}

/**
 * One reading (a busy percentage, 0-100) folded into the state. A null state starts afresh:
 * the first reading after a gap is taken as it is and banded from 0 upwards.
 */
export function foldReading(state: PressureState | null, busyPercent: number): PressureState {
  const smoothed = smoothBusy(state?.smoothed ?? null, busyPercent / 100);
  return { smoothed, band: nextBand(state?.band ?? null, smoothed) };
}
