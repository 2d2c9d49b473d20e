/**
 * The per-request inputs of slot-aware placement, throughput placement (with the much-slower
 * rule) and local engine contention, gathered from what is already in memory: settings, the
 * env knobs read per request, the throughput book, the peers' snapshots and the engines' work.
 * No I/O; each input is left out when its rule does not apply, so its step records null.
 */
import type { Knobs } from '../config/env.js';
import type { PoolSettings } from '../config/settings-schema.js';
import { kindBits, kindsHolding } from '../engines/model-holdings.js';
import type { UsablePeer } from '../placement/candidates.js';
import { rankScore } from '../placement/rank.js';
import { countsAsSlots, type SlotsInput } from '../placement/steps/slots.js';
import type { ContentionInput } from '../placement/steps/contention.js';
import { THROUGHPUT_MIN_TOKENS } from '../placement/throughput/bands.js';
import type { ThroughputBook } from '../placement/throughput/book.js';
import { predict, slower, type Prediction } from '../placement/throughput/predict.js';
import type { ThroughputInput } from '../placement/throughput-input.js';
import type { Candidate } from '../placement/types.js';
import { advertisedReadings } from '../peers/throughput-advert.js';
import type { BusyWith } from '../routing-log/placement-records.js';
import type { RoutedRoute } from './route-table.js';
import { bookKeyOf } from './throughput-sampler.js';

const NO_ENGINE_SLOTS: ReadonlyMap<string, number> = new Map();
/** The engine kinds whose concurrency is a slot count, as bits for kindsHolding. */
const SLOT_KINDS = kindBits(countsAsSlots);

export interface PlacementInputsArgs {
  readonly route: RoutedRoute;
  readonly model: string;
  readonly candidates: readonly Candidate[];
  readonly peers: readonly UsablePeer[];
  readonly settings: PoolSettings;
  readonly env: Pick<Knobs, 'throughputPlacement' | 'contentionPlacement' | 'slowerPlacementRatio' | 'slowerPlacementFloorMs'>;
  readonly estimatedTokens: number;
  readonly budgetMs: number;
  /** options.num_ctx on a native route; null when none. */
  readonly numCtx: number | null;
  /** The window this node's Ollama runs a request that names none (its stated context cap); null when it states none. */
  readonly defaultNumCtx: number | null;
  readonly book: ThroughputBook;
  /** Slot counts this node's engines reported themselves (llama.cpp's /slots), by backend id; absent when none did. */
  readonly engineSlots?: ReadonlyMap<string, number>;
  readonly busy: ReadonlyMap<string, readonly BusyWith[]>;
  readonly withheld: (c: Candidate) => boolean;
  /**
   * The candidate prefix affinity holds (contention-hold.ts): a peer it qualified, or the local
   * engine it qualified where the prefix was shown still warm; null otherwise. Contention,
   * throughput and the much-slower rule all read this one hold: throughput once read the bare
   * qualification, so a contended engine whose prefix was gone still counted as meeting the
   * budget and deferred idle unmeasured peers behind it (audit, 2026-12-05).
   */
  readonly affinityHeld: string | null;
  readonly nowMs: number;
}

export interface PlacementInputs {
  readonly slots?: SlotsInput;
  readonly throughput?: ThroughputInput;
  readonly contention?: ContentionInput;
  /** The window this request runs at on each local engine, by backend id (what EngineWork records). */
  readonly runsAt: ReadonlyMap<string, number | null>;
}

/**
 * Slot counts stated for each candidate whose engine counts as slots: this node's statement
 * locally, else the slot count the engine itself reported (llama.cpp's /slots; the operator's
 * statement wins where there is one), and a peer's ollamaSlots there.
 */
export function statedSlots(
  candidates: readonly Candidate[],
  peers: readonly UsablePeer[] | ReadonlyMap<string, UsablePeer>,
  model: string,
  local: number | null,
  engineSlots: ReadonlyMap<string, number> = NO_ENGINE_SLOTS,
): Map<string, number> {
  const out = new Map<string, number>();
  const byId = peersById(peers);
  for (const c of candidates) {
    if (c.peerId === null) {
      if (c.engine === null || !countsAsSlots(c.engine)) continue;
      const slots = local ?? (c.backendId === null ? undefined : engineSlots.get(c.backendId));
      if (slots !== undefined) out.set(c.id, slots);
      continue;
    }
    const p = byId.get(c.peerId);
    if (p === undefined || p.ollamaSlots == null) continue;
    // The statement is the peer's Ollama's: it counts where the peer serves the model from an engine whose concurrency is slots.
    if ((kindsHolding(p.backends, model) & SLOT_KINDS) !== 0) out.set(c.id, p.ollamaSlots);
  }
  return out;
}

/**
 * The peers by id, built once per request: each candidate's peer was found with a linear
 * peers.find, twice (slots and throughput), which made placement quadratic in the pool size
 * (bench/fleet's scale run; bench/pool-scale measures the curve).
 */
function peersById(peers: readonly UsablePeer[] | ReadonlyMap<string, UsablePeer>): ReadonlyMap<string, UsablePeer> {
  if (!Array.isArray(peers)) return peers as ReadonlyMap<string, UsablePeer>;
  const out = new Map<string, UsablePeer>();
  for (const p of peers as readonly UsablePeer[]) out.set(p.peerId, p);
  return out;
}

export function placementInputs(a: PlacementInputsArgs): PlacementInputs {
  const runsAt = new Map<string, number | null>();
  for (const c of a.candidates) {
    // Only Ollama reloads for a window; any other engine runs a model at one window.
    if (c.peerId === null && c.backendId !== null) runsAt.set(c.backendId, c.engine === 'ollama' ? (a.numCtx ?? a.defaultNumCtx) : null);
  }
  const byId = peersById(a.peers);
  const stated = statedSlots(a.candidates, byId, a.model, a.settings.inferenceOllamaSlots, a.engineSlots);
  // Each input is set only when its rule applies, so an absent key is what a step reads as "off".
  // Assigned one by one rather than written as { ...(slots ? { slots } : {}), ..., runsAt }: on
  // Node 20 an object literal that starts with a spread and adds keys after it builds a new
  // hidden class for every object: ~10 µs for this literal timed alone, ~1.5% of a short placement
  // at 50 peers by profile (bench/micro/placement.ts).
  const out: Mutable<PlacementInputs> = { runsAt };
  if (a.settings.poolSlotAwareness === 1) out.slots = { stated };
  if (!a.route.completion) return out;
  if (a.env.contentionPlacement()) {
    out.contention = { numCtx: a.numCtx, busy: a.busy, runsAt, affinityHeld: a.affinityHeld, pressureWeight: a.settings.poolPressureWeight };
  }
  if (a.env.throughputPlacement() && a.estimatedTokens >= THROUGHPUT_MIN_TOKENS) out.throughput = throughputOf(a, byId, stated);
  return out;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function throughputOf(a: PlacementInputsArgs, byId: ReadonlyMap<string, UsablePeer>, stated: ReadonlyMap<string, number>): ThroughputInput {
  const predictions = new Map<string, Prediction>();
  for (const c of a.candidates) {
    const observed = predict(a.book.readings(bookKeyOf(c, a.model), a.nowMs), a.estimatedTokens, 'observed');
    const peer = c.peerId === null ? undefined : byId.get(c.peerId);
    const advertised =
      peer === undefined
        ? null
        : predict(advertisedReadings(peer.throughput ?? null, a.model, peer.snapshotAtMs ?? a.nowMs, a.nowMs), a.estimatedTokens, 'advertised');
    const chosen = slower(observed, advertised);
    if (chosen !== null) predictions.set(c.id, chosen);
  }
  const rankOpts = { localAffinity: a.settings.poolLocalAffinity, pressureWeight: a.settings.poolPressureWeight };
  return {
    estimatedTokens: a.estimatedTokens,
    budgetMs: a.budgetMs,
    predictions,
    score: (c) => rankScore(c, rankOpts),
    statedSlots: stated,
    withheld: new Set(a.candidates.filter(a.withheld).map((c) => c.id)),
    affinityHeld: a.affinityHeld,
    slowerRatio: a.env.slowerPlacementRatio(),
    slowerFloorMs: a.env.slowerPlacementFloorMs(),
  };
}
