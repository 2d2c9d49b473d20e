/**
 * Throughput evidence in prompt-size bands (spec, "Throughput-aware placement", "How it is
 * kept"). Bands double from 4,096 estimated tokens; a band applies to prompts of its size and
 * larger. Slower evidence replaces a band at once; a faster reading is kept beside it and takes
 * over only as the slow one decays (held 30 minutes, then its hold halves every 30 minutes);
 * every reading is forgotten 2 hours after it was taken. Pure: the time is passed in.
 */
import { elapsedMs } from '../../util/clock.js';

/** Prompts under this many estimated tokens are neither measured nor judged. */
export const THROUGHPUT_MIN_TOKENS = 4096;
/** A slow reading holds its band this long before a faster one starts to take over. */
export const SLOW_HOLD_MS = 30 * 60_000;
/** After the hold, the slow reading's weight halves this often. */
export const SLOW_HALF_LIFE_MS = 30 * 60_000;
/** Every reading is forgotten this long after it was taken. */
export const FORGET_AFTER_MS = 2 * 60 * 60_000;
/** No engine reads or writes this many tokens a second: a larger figure is a timing artefact, not a measurement. */
export const MAX_TOKENS_PER_SEC = 10_000_000;

/** One timed prefill, in the pool's own unit (bytes / 4 of the forwarded body). */
export interface Reading {
  /** The estimated size of the prompt the reading was taken at. */
  readonly promptTokens: number;
  readonly tokensPerSec: number;
  /** True for a missed first-byte deadline: "at least this slow", a bound rather than a rate. */
  readonly deadline: boolean;
  /** Epoch ms it was taken. */
  readonly atMs: number;
}

/** A band as stored: the slow evidence and, beside it, the latest faster reading. */
export interface Band {
  readonly fromTokens: number;
  readonly slow: Reading;
  /** null: no faster reading since the slow one. */
  readonly faster: Reading | null;
}

/** A band as placement reads it now. */
export interface BandReading extends Reading {
  readonly fromTokens: number;
}

/** The band a prompt of `promptTokens` is recorded in; null below the first band. */
export function bandOf(promptTokens: number): number | null {
  if (!(promptTokens >= THROUGHPUT_MIN_TOKENS)) return null;
  let from = THROUGHPUT_MIN_TOKENS;
  while (from * 2 <= promptTokens) from *= 2;
  return from;
}

/** The band after `reading` is recorded in it (`band` null: the band was empty). */
export function recordInBand(band: Band | null, reading: Reading, nowMs: number): Band {
  const from = bandOf(reading.promptTokens)!;
  const current = band === null ? null : readBand(band, nowMs);
  if (current === null || reading.tokensPerSec <= current.tokensPerSec) return { fromTokens: from, slow: reading, faster: null };
  return { fromTokens: from, slow: band!.slow, faster: reading };
}

/**
 * The band's reading now, after decay and forgetting; null when everything in it is forgotten.
 * Ages are elapsedMs: a reading taken before the wall clock was set back is forgotten, where a
 * negative age held a slow reading for as long as the step, and kept out faster evidence.
 */
export function readBand(band: Band, nowMs: number): BandReading | null {
  const fresh = (r: Reading | null) => (r !== null && elapsedMs(nowMs, r.atMs) <= FORGET_AFTER_MS ? r : null);
  const slow = fresh(band.slow);
  const faster = fresh(band.faster);
  if (slow === null) return faster === null ? null : inBand(faster, band.fromTokens);
  const age = elapsedMs(nowMs, slow.atMs);
  if (faster === null || age <= SLOW_HOLD_MS) return inBand(slow, band.fromTokens);
  const weight = 0.5 ** ((age - SLOW_HOLD_MS) / SLOW_HALF_LIFE_MS);
  const tokensPerSec = faster.tokensPerSec - (faster.tokensPerSec - slow.tokensPerSec) * weight;
  return { fromTokens: band.fromTokens, promptTokens: slow.promptTokens, tokensPerSec, deadline: false, atMs: slow.atMs };
}

/**
 * The reading as its band's. Written out rather than { ...r, fromTokens }: on Node 20 an object
 * literal that starts with a spread and adds a key builds a new hidden class each time, and
 * placement reads every measured candidate's bands on every large request (2% of a long-prompt
 * placement at 50 peers, bench/micro/placement.ts).
 */
function inBand(r: Reading, fromTokens: number): BandReading {
  return { promptTokens: r.promptTokens, tokensPerSec: r.tokensPerSec, deadline: r.deadline, atMs: r.atMs, fromTokens };
}
