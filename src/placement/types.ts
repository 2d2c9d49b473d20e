/**
 * Placement contracts. Placement is pure and synchronous over snapshots: it never does I/O,
 * so every rule is testable with plain data and every decision explainable from its inputs.
 */
import type { EngineKind } from '../engines/engine-kind.js';
import type { PlacementRecords } from '../routing-log/entry.js';

/** One engine on one node that holds the requested model and speaks the request's dialect. */
export interface Candidate {
  /** `${node}/${backendId}`: stable for the request. */
  readonly id: string;
  /** 'local' or the peer's MagicDNS name. */
  readonly node: string;
  /** The local engine's id; null for a peer, which chooses its own engine. */
  readonly backendId: string | null;
  /** The engine kind when known; null for a peer. */
  readonly engine: EngineKind | null;
  /** Base URL to dial. */
  readonly url: string;
  /** Requests in flight that the ranker sorts on. */
  readonly queueDepth: number;
}

/** The ranked list as ordered groups: a step may move a candidate into a later tier or reorder inside one, never forward. */
export type Tiers = readonly (readonly Candidate[])[];

export type StepKey = keyof PlacementRecords;

export interface PlacementStep<K extends StepKey = StepKey> {
  /** The routing-log field this step writes. */
  readonly key: K;
  run(tiers: Tiers): { tiers: Tiers; record: PlacementRecords[K] };
}

export interface Placement {
  /** The failover walk order. */
  readonly order: readonly Candidate[];
  readonly records: PlacementRecords;
}
