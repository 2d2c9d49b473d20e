/**
 * The contracts of one request's walk: what it needs from the Hub, what it knows about the
 * request, the records its lifecycle produces, and the hooks other parts attach to it.
 */
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { RoutingLogEntry } from '../routing-log/entry.js';
import type { Candidate } from '../placement/types.js';
import type { InFlight } from './in-flight.js';
import type { OutputFault } from './output-check.js';
import type { AttemptFailure } from './failover-policy.js';
import type { VerdictSignature } from './request-verdict.js';
import type { RoutedRoute } from './route-table.js';
import type { WithholdBook } from './withhold-book.js';
import type { EngineKind } from '../engines/engine-kind.js';
import type { CallerLine } from './walk-caller.js';
import type { EngineTimings } from './walk-timings.js';
import type { RequestTrace } from '../tracing/request-trace.js';

export interface RowWriter {
  update(id: string, patch: Partial<RoutingLogEntry>): void;
  settle(id: string, patch: Partial<RoutingLogEntry>): void;
}

export interface WalkDeps {
  readonly dispatcher: Dispatcher;
  readonly rows: RowWriter;
  readonly inFlight: InFlight;
  readonly logger: Logger;
  /** Headers that authenticate this Hub to a peer for one forward, or why there are none. */
  readonly peerAuth: (peerId: string, method: string, path: string, body: Buffer) => Promise<Record<string, string> | string>;
  /** A peer refused this Hub itself (unmarked 401/403/404): forget its capabilities until its next good poll. */
  readonly onPeerRefused: (peerId: string) => void;
  /** A peer's engine refused the key the peer holds for it. */
  readonly onEngineRefusal: (peer: string, engine: string | null, status: number) => void;
  /** Output faults per node, engine and model: two in five minutes withhold that engine for that model. */
  readonly outputFaults: WithholdBook;
  /** Local engines' failures per backend and model: two 5xx in five minutes withhold that model there. */
  readonly unservable: WithholdBook;
  /** A local backend's model was withheld or released: its snapshot is stale now. */
  readonly onWithholdChange: (backendId: string, model: string, withheld: boolean, reason: string) => void;
  /** Told about every attempt and every settled walk, in order; empty when nothing listens. */
  readonly observers: readonly WalkObserver[];
}

/** How a committed answer ended, when it did not end well. */
export type BodyFault = { readonly kind: 'output'; readonly fault: OutputFault } | { readonly kind: 'dropped' };

export interface WalkRequest {
  readonly requestId: string;
  readonly route: RoutedRoute;
  readonly model: string;
  readonly body: Buffer;
  readonly stream: boolean;
  readonly order: readonly Candidate[];
  readonly budgetMs: number;
  /** performance.now() when the request arrived: durations are measured from here. */
  readonly startedAt: number;
  readonly accept: string | undefined;
  readonly res: ServerResponse;
  /** The caller, watched since the proxy took the request. */
  readonly caller: CallerLine;
  /** On an inbound row, the peer that sent the work: the row names it instead of the engine's node. */
  readonly rowNode: string | null;
  /** On an inbound row, the stall budget the sending Hub stated for its own app (forward-stall.ts); null when it stated none, and on an outbound row. */
  readonly senderStallMs: number | null;
  /** The window each candidate runs the request at, when this Hub can know it (verdict-window.ts); null = cannot see it. */
  readonly windowOf: (c: Candidate) => number | null;
  /** Prefix affinity's outcome for the X-Hub-Pool-Affinity header; absent or null when affinity did not judge the request. */
  readonly affinity?: 'hit' | 'skipped' | 'miss' | null;
  /** The request's trace: each attempt sends its traceparent on and records a span. Absent: no trace. */
  readonly trace?: RequestTrace;
  /**
   * Writes the app's 502 when placement left no candidate at all (the walk settles as
   * 'no-candidate'); the proxy writes it, since it alone knows the pins and local engines to
   * name. Absent: the walk answers as for an exhausted order.
   */
  readonly answerNoCandidate?: () => void;
}

/** A 500 whose body was a verdict on the request, kept while the walk asks another node. */
export interface VerdictResponse {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly bytes: Buffer;
  readonly backend: EngineKind | null;
}

/** One candidate the walk passed over, and why. `candidate.engine` is the engine that answered, when a peer said. */
export interface FailedAttempt {
  readonly candidate: Candidate;
  readonly failure: AttemptFailure;
}

/** One attempt as it starts: the candidate (placement's record of it) and its 0-based place in the order. */
export interface AttemptStart {
  readonly requestId: string;
  readonly model: string;
  readonly candidate: Candidate;
  readonly index: number;
}

/**
 * How a walk ended, once:
 * - committed: an answer went to the app (served, refused with a 4xx, or faulty);
 * - verdict: an engine's verdict on the request went to the app;
 * - hung-up: the caller left, or stopped reading and was closed (`stoppedReadingMs`); `served` is the candidate it was waiting on, if any;
 * - exhausted: every candidate failed (the 502);
 * - no-candidate: placement left no candidate to try (the 502 that says so);
 * - broken: this Hub failed while relaying (a bug); the row still settles and the counts are released.
 */
export type WalkEnd = 'committed' | 'verdict' | 'hung-up' | 'exhausted' | 'no-candidate' | 'broken';

export interface WalkOutcome {
  readonly end: WalkEnd;
  /** The candidate whose answer the app got, or that the caller was waiting on; engine is what answered. null: none. */
  readonly served: Candidate | null;
  /** 1-based place of `served` in the order; null when there is none. */
  readonly attempt: number | null;
  /** The status `served` answered; null when none arrived, or when the caller hung up before any response headers were written to it. */
  readonly status: number | null;
  /** Time to `served`'s response headers, ms from arrival; null when `status` is. */
  readonly headersMs: number | null;
  /**
   * Time to `served`'s response headers, ms from the start of its own attempt: what the node
   * itself took, without the candidates tried before it. null when it sent no headers.
   */
  readonly attemptHeadersMs: number | null;
  /** Time to the end of what was relayed (or to the end of the walk), ms from arrival. */
  readonly totalMs: number;
  /** How a committed body ended badly; null when it did not (or nothing was committed). */
  readonly bodyFault: BodyFault | null;
  /** The verdict answered with, on a verdict end. */
  readonly verdict: {
    readonly signature: VerdictSignature;
    readonly basis: 'definitive' | 'confirmed' | 'last-candidate';
    readonly confirms: string | null;
  } | null;
  /** The candidates passed over before `served`, in order. */
  readonly failures: readonly FailedAttempt[];
  /**
   * On a hang-up this Hub caused, closing an app that took none of its answer for that long
   * (app-stall.ts): the stall time in ms. null when the app closed its connection itself, and
   * on every other end.
   */
  readonly stoppedReadingMs: number | null;
}

/** What an observer learns when a walk has settled. */
export interface WalkSettled extends WalkOutcome {
  readonly requestId: string;
  readonly model: string;
  readonly route: RoutedRoute;
  readonly stream: boolean;
  readonly bodyBytes: number;
  readonly budgetMs: number;
  /** The engine's own timings from the answer's final frame or body; null when it reported none or none was read. Parsed on call. */
  engineTimings(): EngineTimings | null;
}

/**
 * Hooks into the walk's lifecycle (throughput samples, affinity, contention). Each is called
 * synchronously at its point; none can change the walk, and one that throws is logged and skipped.
 * - onAttempt: a candidate is being asked (its queue-depth count is held from here);
 * - onAttemptEnd: that attempt is over, with its failure, or null when it was the one the walk ended on;
 * - onSettled: the walk is over and its row settled.
 */
export interface WalkObserver {
  onAttempt?(attempt: AttemptStart): void;
  onAttemptEnd?(attempt: AttemptStart, failure: AttemptFailure | null): void;
  onSettled?(settled: WalkSettled): void;
}
