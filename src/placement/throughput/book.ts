/**
 * The throughput book: every prefill reading this node took, per node, engine and model, kept
 * in bands (bands.ts) in memory only, so a restart forgets it. Written by the walk observer
 * (proxy/throughput-sampler.ts), read by placement and status. The clock is injected.
 */
import { elapsedMs, type Clock } from '../../util/clock.js';
import { bandOf, FORGET_AFTER_MS, readBand, recordInBand, type Band, type BandReading, type Reading } from './bands.js';

/** Keys (node, engine, model) held at most; the least recently written go first. Bounds memory however many models are asked for. */
export const MAX_BOOK_KEYS = 2_000;

export interface BookKey {
  /** 'local' or a peer's MagicDNS name. */
  readonly node: string;
  /** The local engine's backend id; null for a peer, which picks its own engine. */
  readonly backendId: string | null;
  readonly model: string;
}

/** One band as status shows it. */
export interface BandView {
  readonly fromTokens: number;
  readonly promptTokens: number;
  readonly tokensPerSec: number;
  readonly deadline: boolean;
  readonly ageMs: number;
}

export interface EstimateView extends BookKey {
  readonly bands: readonly BandView[];
  /** The latest decode rate, tokens per second; null when none was timed. Reported, not ranked on. */
  readonly decodeTokensPerSec: number | null;
  /** How long ago that rate was timed, ms; null exactly when decodeTokensPerSec is (none timed, or forgotten). */
  readonly decodeAgeMs: number | null;
}

interface Entry {
  readonly key: BookKey;
  bands: Map<number, Band>;
  decode: { tokensPerSec: number; atMs: number } | null;
}

const keyOf = (k: BookKey) => `${k.node}\u0000${k.backendId ?? ''}\u0000${k.model}`;

/** Entries by node, then engine ('' for a peer), then model. */
type Index = Map<string, Map<string, Map<string, Entry>>>;

export class ThroughputBook {
  readonly #clock: Clock;
  /** Keyed by keyOf, in write order (least recently written first): what the bound evicts by. */
  readonly #entries = new Map<string, Entry>();
  /**
   * The same entries by node, engine and model, for reads: placement reads every candidate on
   * every large request, and looking up by the parts (strings V8 has already hashed) rather than a
   * key string built per read made a long placement at 50 peers 0.89-0.92x (bench/micro/placement.ts).
   */
  readonly #index: Index = new Map();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Records one prefill reading (ignored below the first band). */
  record(key: BookKey, reading: Omit<Reading, 'atMs'>): void {
    const from = bandOf(reading.promptTokens);
    if (from === null || !(reading.tokensPerSec > 0)) return;
    const now = this.#clock.nowMs();
    const entry = this.#entry(key);
    const band = recordInBand(entry.bands.get(from) ?? null, { ...reading, atMs: now }, now);
    entry.bands.set(band.fromTokens, band);
  }

  recordDecode(key: BookKey, tokensPerSec: number): void {
    this.#entry(key).decode = { tokensPerSec, atMs: this.#clock.nowMs() };
  }

  /**
   * The bands placement reads for this key at `now` (the clock's reading by default; placement
   * passes the one it read for the whole request), smallest first; empty when unmeasured.
   */
  readings(key: BookKey, now = this.#clock.nowMs()): BandReading[] {
    const entry = this.#index
      .get(key.node)
      ?.get(key.backendId ?? '')
      ?.get(key.model);
    if (entry === undefined) return [];
    const out: BandReading[] = [];
    for (const band of entry.bands.values()) {
      const r = readBand(band, now);
      if (r !== null) out.push(r);
    }
    return out.sort((a, b) => a.fromTokens - b.fromTokens);
  }

  /** Every key with a live reading, as status shows it. */
  estimates(filter: (key: BookKey) => boolean = () => true): EstimateView[] {
    const now = this.#clock.nowMs();
    const out: EstimateView[] = [];
    for (const entry of this.#entries.values()) {
      if (!filter(entry.key)) continue;
      const bands = this.readings(entry.key, now).map((r) => ({
        fromTokens: r.fromTokens,
        promptTokens: r.promptTokens,
        tokensPerSec: r.tokensPerSec,
        deadline: r.deadline,
        ageMs: elapsedMs(now, r.atMs),
      }));
      // As the bands (readBand): a rate timed before the wall clock was set back is forgotten.
      const decode = entry.decode !== null && elapsedMs(now, entry.decode.atMs) <= FORGET_AFTER_MS ? entry.decode : null;
      if (bands.length === 0 && decode === null) continue;
      out.push({ ...entry.key, bands, decodeTokensPerSec: decode?.tokensPerSec ?? null, decodeAgeMs: decode === null ? null : elapsedMs(now, decode.atMs) });
    }
    return out;
  }

  #entry(key: BookKey): Entry {
    const k = keyOf(key);
    let entry = this.#entries.get(k);
    if (entry === undefined) {
      entry = { key: { node: key.node, backendId: key.backendId, model: key.model }, bands: new Map(), decode: null };
      indexSet(this.#index, entry);
    } else {
      this.#entries.delete(k);
    }
    // Re-inserted last: Map order is then least recently written first.
    this.#entries.set(k, entry);
    while (this.#entries.size > MAX_BOOK_KEYS) {
      const [oldest, evicted] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      indexDelete(this.#index, evicted.key);
    }
    return entry;
  }
}

function indexSet(index: Index, entry: Entry): void {
  const { node, backendId, model } = entry.key;
  let engines = index.get(node);
  if (engines === undefined) index.set(node, (engines = new Map()));
  let models = engines.get(backendId ?? '');
  if (models === undefined) engines.set(backendId ?? '', (models = new Map()));
  models.set(model, entry);
}

/** Drops the key, and any map it leaves empty, so evicted keys hold no memory. */
function indexDelete(index: Index, key: BookKey): void {
  const engines = index.get(key.node);
  const models = engines?.get(key.backendId ?? '');
  if (engines === undefined || models === undefined) return;
  models.delete(key.model);
  if (models.size > 0) return;
  engines.delete(key.backendId ?? '');
  if (engines.size === 0) index.delete(key.node);
}
