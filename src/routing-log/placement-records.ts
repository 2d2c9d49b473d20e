/**
 * The routing-log sections written by slot-aware placement, throughput-aware placement (with
 * the much-slower rule) and local engine contention. Wire contracts read by the CLI and the
 * dashboard: field names are the spec's ("Slot-aware placement", "Throughput-aware placement",
 * "Much slower than a node as free", "Local engine contention"). Data only; the CLI makes the
 * sentences.
 */
import type { EngineKind } from '../engines/engine-kind.js';

/** One candidate whose queue filled the slots its node stated. */
export interface SlotDemotion {
  /** 'local' or the peer's MagicDNS name. */
  readonly node: string;
  /** The engine kind; null for a peer, which picks its own engine. */
  readonly backend: EngineKind | null;
  /** The local engine's id; null for a peer. */
  readonly backendId: string | null;
  /** The queue depth the ranker sorted on. */
  readonly inFlight: number;
  /** False when inFlight is the neutral assumed load of a peer that reported none (Candidate.loadReported). */
  readonly loadReported: boolean;
  /** The slot count its node stated. */
  readonly slots: number;
}

/**
 * The slots section: null when poolSlotAwareness is off or no candidate's node stated a count.
 * demoted lists the full candidates moved behind one with a free slot (empty when none moved).
 */
export interface SlotsRecord {
  readonly demoted: readonly SlotDemotion[];
  /** True when every candidate that stated a count was full, so nothing moved. */
  readonly allFull: boolean;
  /**
   * Candidates that were full when placed, demoted or not: with allFull, the ones the ranker's
   * order was kept across. Not what overridden is judged against: a full node nothing was moved
   * ahead of was not demoted, so landing on it overrides nothing.
   */
  readonly full: readonly SlotDemotion[];
  /** True when the row settled on a candidate in demoted anyway (everything ahead of it failed). */
  readonly overridden: boolean;
}

/** Where a prediction came from: what this node timed, what the peer advertised, or the slower of both. */
export type ThroughputSource = 'observed' | 'advertised';

export interface ThroughputEstimate {
  readonly node: string;
  readonly backend: EngineKind | null;
  /** The local engine's id; null for a peer. */
  readonly backendId: string | null;
  /** The rate as measured, estimated tokens per second, at fromPromptTokens. */
  readonly tokensPerSec: number;
  /** The size of the prompt the reading was taken at (estimated tokens). */
  readonly fromPromptTokens: number;
  /** True when the reading was read forward to a larger prompt (predictedMs carries the growth factor). */
  readonly extrapolated: boolean;
  /** Predicted wait for a first byte on this prompt, ms. */
  readonly predictedMs: number;
  readonly source: ThroughputSource;
  /** True when the reading is a missed deadline: a lower bound on the wait, not a rate. */
  readonly deadline: boolean;
  /** True when predictedMs is longer than the request's budget. */
  readonly slow: boolean;
  /**
   * True when being slow moved it behind a candidate of its group that was not; false for a
   * slow node whose group held nothing else to go first (it kept its place), and for every
   * node that meets the budget.
   */
  readonly moved: boolean;
}

/** A peer moved behind a node measured to meet the budget, and the prior it was judged on. */
export interface UnmeasuredDeferral {
  readonly node: string;
  readonly backend: EngineKind | null;
  readonly prior: 'unknown' | 'cpu-only';
}

/** A node that was about to go first and went behind a much faster one. */
export interface SlowerDemotion {
  readonly node: string;
  readonly backend: EngineKind | null;
  readonly predictedMs: number;
  readonly inFlight: number;
  /** False when inFlight is the neutral assumed load of a peer that reported none (Candidate.loadReported). */
  readonly loadReported: boolean;
  /** The first node that went ahead of it. */
  readonly fasterNode: string;
  readonly fasterBackend: EngineKind | null;
  readonly fasterMs: number;
  readonly fasterInFlight: number;
  /** loadReported for the faster node's fasterInFlight. */
  readonly fasterLoadReported: boolean;
}

/** The throughput section: null when no candidate had applicable evidence. */
export interface ThroughputRecord {
  /** bytes / 4 of the forwarded body. */
  readonly estimatedTokens: number;
  readonly budgetMs: number;
  readonly estimates: readonly ThroughputEstimate[];
  readonly unmeasured: readonly UnmeasuredDeferral[];
  readonly slowerDemoted: readonly SlowerDemotion[];
  /** True when the request was placed on a node predicted to miss its budget anyway. */
  readonly overridden: boolean;
}

/** A generation in flight on a local engine that the request could not join. */
export interface BusyWith {
  readonly model: string;
  /** The window it runs at; null when it named none and this node states no default. */
  readonly numCtx: number | null;
}

export interface ContentionDemotion {
  readonly node: string;
  readonly backend: EngineKind | null;
  /** The local engine's id (contention judges only this Hub's engines). */
  readonly backendId: string | null;
  readonly busyWith: readonly BusyWith[];
  /** The window this request would have run at on that engine; null as for busyWith. */
  readonly runsAt: number | null;
  /** The nodes the engine gave way to; empty when it kept its place. */
  readonly behind: readonly string[];
  /** 'affinity' when prefix affinity held the engine where it was; null otherwise. */
  readonly overriddenBy: 'affinity' | null;
}

/** The contention section: null when no local engine was contended. */
export interface ContentionRecord {
  /** The window the request named (options.num_ctx on a native route); null when none. */
  readonly numCtx: number | null;
  readonly demoted: readonly ContentionDemotion[];
  /** True when the request was served by an engine that gave way anyway. */
  readonly overridden: boolean;
}
