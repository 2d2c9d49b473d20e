/**
 * Throughput evidence on the wire (spec, "Throughput-aware placement", "Where it applies"): a
 * node advertises its own engines' bands per model in GET /capabilities as throughput, and
 * leaves the key out when nothing has been timed. A peer's document is untrusted: it is parsed
 * with a schema entry by entry, bounded in models and bands. On reading,
 * each band is aged from when this Hub took the snapshot and forgotten after 2 hours, as this
 * node's own readings are.
 */
import { z } from 'zod';
import { FORGET_AFTER_MS, MAX_TOKENS_PER_SEC, THROUGHPUT_MIN_TOKENS, type BandReading } from '../placement/throughput/bands.js';
import type { EstimateView } from '../placement/throughput/book.js';
import { MAX_MODEL_NAME_LENGTH } from '../engines/model-name.js';
import { elapsedMs } from '../util/clock.js';

/** Models read from one peer's advert; a longer advert is refused whole. */
export const MAX_ADVERTISED_MODELS = 2_000;
/** Bands per model: doubling from 4,096, 16 reach past 2^27 tokens, more than any model's window. */
export const MAX_ADVERTISED_BANDS = 16;
const MAX_PROMPT_TOKENS = 2 ** 28;

/**
 * An age as sent, read as a reading's age: a peer whose wall clock stepped back (an NTP
 * correction) sends a reading as taken in the future, which is read as taken now; past the
 * 2-hour memory it is forgotten, as it would be here.
 */
const AGE_MS = z
  .number()
  .finite()
  .max(FORGET_AFTER_MS)
  .transform((ms) => Math.max(0, Math.round(ms)));

const RATE = z.number().positive().max(MAX_TOKENS_PER_SEC);

const BAND = z
  .object({
    fromTokens: z.number().int().min(THROUGHPUT_MIN_TOKENS).max(MAX_PROMPT_TOKENS),
    promptTokens: z.number().int().min(THROUGHPUT_MIN_TOKENS).max(MAX_PROMPT_TOKENS),
    tokensPerSec: RATE,
    deadline: z.boolean(),
    ageMs: AGE_MS,
  })
  .refine((b) => b.promptTokens >= b.fromTokens, 'a band reading is taken at its size or larger');

const MODEL_SHAPE = z.object({ bands: z.array(z.unknown()).max(MAX_ADVERTISED_BANDS) });

export type AdvertisedBand = z.infer<typeof BAND>;
export interface ModelAdvert {
  readonly bands: readonly AdvertisedBand[];
  readonly decodeTokensPerSec: number | null;
  /** Left off (or null) when there is a rate without an age: a peer on a build before it sent none. */
  readonly decodeAgeMs?: number | null;
}
/** A node's advert: per model, its bands and decode rate. */
export type ThroughputAdvert = Readonly<Record<string, ModelAdvert>>;

/**
 * A peer's advert, or null when absent, not an object, longer than the bound, or holding nothing
 * readable. Read entry by entry, as the rest of its capabilities are: a band or a decode rate that
 * is no measurement (a rate no engine reaches, an age past the 2-hour memory) is dropped alone, and
 * a model whose entry is malformed is left out alone. Refused whole, one engine's odd figure took
 * every model's evidence with it, and the peer read as unmeasured everywhere.
 */
export function readThroughputAdvert(value: unknown): ThroughputAdvert | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  if (entries.length > MAX_ADVERTISED_MODELS) return null;
  const out: [string, ModelAdvert][] = [];
  for (const [model, entry] of entries) {
    if (model.length === 0 || model.length > MAX_MODEL_NAME_LENGTH) continue;
    const read = readModelAdvert(entry);
    if (read !== null) out.push([model, read]);
  }
  return out.length === 0 ? null : Object.fromEntries(out);
}

/** One model's entry; null when it is not one (no bands array, more bands than the bound) or holds nothing readable. */
function readModelAdvert(entry: unknown): ModelAdvert | null {
  const shape = MODEL_SHAPE.safeParse(entry);
  if (!shape.success) return null;
  const bands: AdvertisedBand[] = [];
  for (const b of shape.data.bands) {
    const band = BAND.safeParse(b);
    if (band.success) bands.push(band.data);
  }
  const { decodeTokensPerSec: rate, decodeAgeMs: age } = entry as { decodeTokensPerSec?: unknown; decodeAgeMs?: unknown };
  const decode = RATE.safeParse(rate);
  // Optional: a peer on a build before it sends none, and its rate then has no age to show.
  const decodeAge = age === undefined || age === null ? null : AGE_MS.safeParse(age);
  if (!decode.success || (decodeAge !== null && !decodeAge.success)) return bands.length === 0 ? null : { bands, decodeTokensPerSec: null };
  return decodeAge === null ? { bands, decodeTokensPerSec: decode.data } : { bands, decodeTokensPerSec: decode.data, decodeAgeMs: decodeAge.data };
}

/**
 * What this node advertises from its own readings: per model, the slowest reading of each band
 * across the local engines holding it (a peer picks its own engine, so the sender should not
 * count on the fastest). null when nothing has been timed, so the key is left out.
 */
export function advertOf(local: readonly EstimateView[]): ThroughputAdvert | null {
  // By model in a Map: a model named `constructor` found Object.prototype's member in a plain object.
  const out = new Map<string, { bands: Map<number, AdvertisedBand>; decodeTokensPerSec: number | null; decodeAgeMs: number | null }>();
  for (const e of local) {
    let m = out.get(e.model);
    if (m === undefined) out.set(e.model, (m = { bands: new Map(), decodeTokensPerSec: null, decodeAgeMs: null }));
    for (const b of e.bands) {
      const have = m.bands.get(b.fromTokens);
      if (have === undefined || b.tokensPerSec < have.tokensPerSec)
        m.bands.set(b.fromTokens, { ...b, tokensPerSec: b.tokensPerSec, ageMs: ageOnTheWire(b.ageMs) });
    }
    // The slowest engine's rate, with the age of that reading.
    if (e.decodeTokensPerSec !== null && (m.decodeTokensPerSec === null || e.decodeTokensPerSec < m.decodeTokensPerSec)) {
      m.decodeTokensPerSec = e.decodeTokensPerSec;
      m.decodeAgeMs = e.decodeAgeMs === null ? null : ageOnTheWire(e.decodeAgeMs);
    }
  }
  if (out.size === 0) return null;
  return Object.fromEntries(
    [...out].map(([model, m]) => [
      model,
      {
        bands: [...m.bands.values()].sort((a, b) => a.fromTokens - b.fromTokens),
        decodeTokensPerSec: m.decodeTokensPerSec,
        ...(m.decodeAgeMs === null ? {} : { decodeAgeMs: m.decodeAgeMs }),
      },
    ]),
  );
}

/**
 * An age as this node sends it: whole milliseconds, and never below zero, which a step back of
 * this node's wall clock gives a reading taken before it (peers before 2026-12-07 refused a whole
 * advert for one such age).
 */
function ageOnTheWire(ms: number): number {
  return Math.max(0, Math.round(ms));
}

/** One model's advert read at one snapshot time: its readings, and the oldest reading's time. */
interface ReadAdvert {
  readonly snapshotAtMs: number;
  readonly readings: readonly BandReading[];
  readonly oldestAtMs: number;
}

const NO_READINGS: readonly BandReading[] = Object.freeze([]);

/**
 * Each model's advert as last read, keyed on the parsed advert itself: a poll stores a new
 * object, so an entry lives as long as the snapshot it was read from. Read once rather than for
 * every candidate of every large request: a long placement at 50 peers 0.93x (bench/micro/placement.ts).
 */
const readAdverts = new WeakMap<ModelAdvert, ReadAdvert>();

/** A peer's advertised bands for `model`, aged from the snapshot time; forgotten ones dropped. Shared: not to be changed. */
export function advertisedReadings(advert: ThroughputAdvert | null, model: string, snapshotAtMs: number, nowMs: number): readonly BandReading[] {
  // Own keys only: an advert is a plain object, so a model named `constructor` or `toString`
  // would otherwise read Object.prototype's member as an advert and throw.
  const m = advert !== null && Object.hasOwn(advert, model) ? advert[model] : undefined;
  if (m === undefined) return NO_READINGS;
  let read = readAdverts.get(m);
  if (read === undefined || read.snapshotAtMs !== snapshotAtMs) {
    read = readAdvert(m, snapshotAtMs);
    readAdverts.set(m, read);
  }
  // Ages are elapsedMs, as in this node's own bands (bands.ts, readBand): a reading dated well
  // ahead of now, from a snapshot taken before the wall clock was set back, is forgotten, not held
  // for as long as the step. Every reading lies between the oldest and the snapshot, so when both
  // ends are kept all are, and the array read once is the answer.
  if (elapsedMs(nowMs, read.oldestAtMs) <= FORGET_AFTER_MS && elapsedMs(nowMs, read.snapshotAtMs) <= FORGET_AFTER_MS) return read.readings;
  return read.readings.filter((r) => elapsedMs(nowMs, r.atMs) <= FORGET_AFTER_MS);
}

function readAdvert(m: ModelAdvert, snapshotAtMs: number): ReadAdvert {
  const readings: BandReading[] = [];
  let oldestAtMs = Infinity;
  for (const b of m.bands) {
    const atMs = snapshotAtMs - b.ageMs;
    readings.push({ fromTokens: b.fromTokens, promptTokens: b.promptTokens, tokensPerSec: b.tokensPerSec, deadline: b.deadline, atMs });
    if (atMs < oldestAtMs) oldestAtMs = atMs;
  }
  return { snapshotAtMs, readings, oldestAtMs };
}
