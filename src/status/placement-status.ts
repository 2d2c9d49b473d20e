/**
 * The slot and throughput figures GET /status shows per node (spec, "Slot-aware placement" and
 * "Throughput-aware placement", "Seeing it"): this node's slot statement and whether the knob is
 * on here, its own estimates and exactly what it advertises, and for each peer its stated slots
 * (through the same clamp the ranker reads with) and throughput as { observed, advertised }:
 * what this node timed, and the peer's advert after the validation and ageing routing applies.
 */
import { FORGET_AFTER_MS } from '../placement/throughput/bands.js';
import type { EstimateView, ThroughputBook } from '../placement/throughput/book.js';
import { advertOf, type ThroughputAdvert } from '../peers/throughput-advert.js';
import type { PoolSettings } from '../config/settings-schema.js';

export interface LocalPlacementStatus {
  /** inferenceOllamaSlots; null when not stated. */
  readonly ollamaSlots: number | null;
  /** poolSlotAwareness is 1 here. */
  readonly slotAwareness: boolean;
  readonly throughput: { readonly estimates: readonly EstimateView[]; readonly advertised: ThroughputAdvert | null };
}

export interface PeerPlacementStatus {
  /** The peer's stated slots; null when not stated (or not valid). */
  readonly ollamaSlots: number | null;
  readonly throughput: { readonly observed: readonly EstimateView[]; readonly advertised: ThroughputAdvert | null };
}

/** What the last snapshot of a peer said, as placement reads it. */
export interface PeerSnapshotFacts {
  readonly ollamaSlots: number | null;
  readonly throughput: ThroughputAdvert | null;
  readonly snapshotAtMs: number | null;
}

export function localPlacementStatus(settings: PoolSettings, book: ThroughputBook): LocalPlacementStatus {
  const estimates = book.estimates((k) => k.node === 'local');
  return {
    ollamaSlots: settings.inferenceOllamaSlots,
    slotAwareness: settings.poolSlotAwareness === 1,
    throughput: { estimates, advertised: advertOf(estimates) },
  };
}

export function peerPlacementStatus(name: string, facts: PeerSnapshotFacts | null, book: ThroughputBook, nowMs: number): PeerPlacementStatus {
  return {
    ollamaSlots: facts?.ollamaSlots ?? null,
    throughput: { observed: book.estimates((k) => k.node === name), advertised: agedAdvert(facts, nowMs) },
  };
}

/**
 * The advert with each band's and the decode rate's age counted to now, forgotten readings and
 * then empty models dropped. decodeAgeMs is always present here: null when there is no rate, or
 * when the peer (an older build) sent a rate without its age.
 */
function agedAdvert(facts: PeerSnapshotFacts | null, nowMs: number): ThroughputAdvert | null {
  if (facts === null || facts.throughput === null || facts.snapshotAtMs === null) return null;
  const since = Math.max(0, nowMs - facts.snapshotAtMs);
  const models = Object.entries(facts.throughput)
    .map(([model, m]) => {
      const decodeAgeMs = m.decodeTokensPerSec === null || m.decodeAgeMs == null ? null : m.decodeAgeMs + since;
      // Forgotten after 2 hours, as this node's own decode readings are; an ageless rate cannot be aged out.
      const forgotten = decodeAgeMs !== null && decodeAgeMs > FORGET_AFTER_MS;
      const bands = m.bands.map((b) => ({ ...b, ageMs: b.ageMs + since })).filter((b) => b.ageMs <= FORGET_AFTER_MS);
      return [model, { bands, decodeTokensPerSec: forgotten ? null : m.decodeTokensPerSec, decodeAgeMs: forgotten ? null : decodeAgeMs }] as const;
    })
    .filter(([, m]) => m.bands.length > 0 || m.decodeTokensPerSec !== null);
  return models.length === 0 ? null : Object.fromEntries(models);
}
