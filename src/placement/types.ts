/**
 * Placement contracts. Placement is pure and synchronous over snapshots: it never does I/O,
 * so every rule is testable with plain data and every decision explainable from its inputs.
 */
import type { RoutingPin } from '../config/settings-schema.js';
import type { EngineKind } from '../engines/engine-kind.js';
import type { PlacementRecords } from '../routing-log/entry.js';
import type { AffinityContext } from './steps/affinity.js';

/** One engine on one node that holds the requested model and speaks the request's dialect. */
export interface Candidate {
  /** `${node}/${backendId}` locally, `${node}/pool` for a peer: stable for the request. */
  readonly id: string;
  /** 'local' or the peer's MagicDNS name. */
  readonly node: string;
  /** The local engine's id; null for a peer, which chooses its own engine. */
  readonly backendId: string | null;
  /** The engine kind when known; null for a peer. */
  readonly engine: EngineKind | null;
  /** Base URL to dial: the engine's, or the peer's origin. */
  readonly url: string;
  /** Requests in flight that the ranker sorts on (for a peer: forwards plus what its snapshot counted beyond them). */
  readonly queueDepth: number;
  /** The peer row's id; null for a local engine. */
  readonly peerId: string | null;
  /** The peer's reported hardware tier; null when local or not reported. */
  readonly hardwareTier: string | null;
  /** GPU-pressure band 0-3 as ranking reads it (unknown = 1, floored by forwards); read only when poolPressureWeight > 0. */
  readonly pressure: number;
}

/** The ranked list as ordered groups: a step may move a candidate into a later tier or reorder inside one, never forward. */
export type Tiers = readonly (readonly Candidate[])[];

export type StepKey = keyof PlacementRecords;

/** What a placement step may read about the request and the pool. */
export interface PlacementContext {
  readonly model: string;
  readonly pins: readonly RoutingPin[];
  /** Prefix affinity's view of this request's session; absent or null when affinity does not apply. */
  readonly affinity?: AffinityContext | null;
}

export interface PlacementStep<K extends StepKey = StepKey> {
  /** The routing-log field this step writes. */
  readonly key: K;
  run(tiers: Tiers, ctx: PlacementContext): { tiers: Tiers; record: PlacementRecords[K] };
}

export interface Placement {
  /** The failover walk order. */
  readonly order: readonly Candidate[];
  readonly records: PlacementRecords;
}
