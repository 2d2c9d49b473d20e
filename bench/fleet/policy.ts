/**
 * What a placement policy is to the simulator: it orders the nodes for a request (the failover
 * walk), and it is told what happened to each attempt and to the request, the way the Hub's
 * walk observers are. Every policy runs inside the same walk (simulate.ts): the same first-byte
 * budget, the same failover on a 5xx or a missed deadline; only the order differs.
 */
import type { AttemptFailure } from '../../src/proxy/failover-policy.js';
import type { EngineTimings } from '../../src/proxy/walk-timings.js';
import type { WalkEnd } from '../../src/proxy/walk-types.js';
import type { FleetSpec } from './data-files.js';
import type { Engine } from './engine.js';
import type { EventQueue } from './event-queue.js';
import type { TraceRequest } from './trace.js';

export interface World {
  readonly q: EventQueue;
  readonly fleet: FleetSpec;
  /** Every node's engine, by node name, in the run's listing order (a seeded shuffle of the fleet file). */
  readonly engines: ReadonlyMap<string, Engine>;
  /** The first-byte budget for a request (the project's header-budget function at the Hub's defaults). */
  readonly budgetMs: (r: TraceRequest) => number;
  /** Requests the walk has placed on each node and not finished (what a central router counts). */
  readonly inFlight: ReadonlyMap<string, number>;
}

export interface Settled {
  readonly end: WalkEnd;
  /** The node whose answer the app got; null when none. */
  readonly served: string | null;
  /** 1-based attempt that was served; null when none. */
  readonly attempt: number | null;
  readonly status: number | null;
  readonly headersMs: number | null;
  /** From the start of the served attempt to its first byte; null when none. */
  readonly attemptHeadersMs: number | null;
  readonly totalMs: number;
  /** The answer was nothing but placeholders (a streamed one cannot be recalled). */
  readonly degenerate: boolean;
  readonly failures: readonly { readonly node: string; readonly failure: AttemptFailure }[];
  readonly timings: EngineTimings | null;
}

export interface Policy {
  readonly name: string;
  /** The walk order, as node names; empty when nothing can serve the request. */
  order(r: TraceRequest): string[];
  onAttempt?(r: TraceRequest, index: number, node: string): void;
  onAttemptEnd?(r: TraceRequest, index: number, node: string, failure: AttemptFailure | null, degenerate: boolean): void;
  onSettled?(r: TraceRequest, s: Settled): void;
  /** Called when the run ends, for policies that report something of their own. */
  finish?(): Record<string, number>;
}

export type PolicyFactory = (world: World) => Policy;
