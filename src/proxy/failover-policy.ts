/**
 * Whether a candidate's answer ends the walk or moves the request on (spec, Failover).
 * Transport errors, header deadlines, 5xx, 408 and 429 move on; an ordinary 4xx is the
 * request's own fault and goes back to the app, since another machine would refuse it too.
 * Once status and headers have gone to the app nothing is retried.
 */
import type { OutputFault } from './output-check.js';
import type { VerdictSignature } from './request-verdict.js';

/**
 * Why one candidate was passed over, as a record: the walk decides on kinds, never on words,
 * and the routing log's few words are written from it once (describeFailure).
 */
export type AttemptFailure =
  /** No response at all: the connection failed or broke before any headers. */
  | { readonly kind: 'transport'; readonly reason: string }
  /** No response headers within the request's first-byte budget. */
  | { readonly kind: 'deadline'; readonly budgetMs: number }
  /** This Hub could not compute the credentials a peer needs; nothing was sent. */
  | { readonly kind: 'no-credentials'; readonly why: string }
  /** A status that moves the request on (5xx, 408, 429, a peer's refusal of this Hub). */
  | { readonly kind: 'status'; readonly status: number; readonly peerRefused: boolean }
  /** An engine's 500 whose body was read for a verdict; the signature when it carried one. */
  | { readonly kind: 'engine-500'; readonly signature: VerdictSignature | null }
  /** The engine's connection dropped part-way through a body that was being read whole. */
  | { readonly kind: 'body-dropped'; readonly status: number; readonly reason: string }
  /** A body being read whole stopped arriving: no bytes for the request's budget. */
  | { readonly kind: 'body-stalled'; readonly status: number; readonly idleMs: number }
  /** A 200 whose output nobody can use (output-check.ts). */
  | { readonly kind: 'output-fault'; readonly status: number; readonly fault: OutputFault };

export type StatusDecision = 'commit' | 'fail-over';

export function decideOnStatus(status: number): StatusDecision {
  if (status >= 500 || status === 408 || status === 429) return 'fail-over';
  return 'commit';
}

/** The few words an attempt's failure is recorded under. Never an engine's message text. */
export function describeFailure(failure: AttemptFailure): string {
  switch (failure.kind) {
    case 'transport':
      return failure.reason;
    case 'deadline':
      return `No response headers within ${failure.budgetMs}ms`;
    case 'no-credentials':
      return `no credentials for this peer (${failure.why})`;
    case 'status':
      return failure.peerRefused ? `HTTP ${failure.status} (the peer refused this Hub)` : `HTTP ${failure.status}`;
    case 'engine-500':
      return failure.signature === null ? 'HTTP 500' : `HTTP 500 (${failure.signature})`;
    case 'body-dropped':
      return `the engine's connection dropped mid-body (${failure.reason})`;
    case 'body-stalled':
      return `the engine stopped sending its body (nothing for ${failure.idleMs}ms)`;
    case 'output-fault':
      return `output fault (${failure.fault})`;
  }
}

/** The status the candidate answered with, or null when it never answered. */
export function failureStatus(failure: AttemptFailure): number | null {
  switch (failure.kind) {
    case 'transport':
    case 'deadline':
    case 'no-credentials':
      return null;
    case 'engine-500':
      return 500;
    default:
      return failure.status;
  }
}

/** What the walk knows about an answer beyond its status. */
export interface AnswerContext {
  /** The answer came from a peer's /local/* route, not a local engine. */
  readonly fromPeer: boolean;
  /** The peer marked the answer as relayed from one of its engines (X-Hub-Pool-Backend). */
  readonly engineMarked: boolean;
  /** No candidate is left after this one. */
  readonly last: boolean;
}

export type AnswerDecision =
  | { readonly action: 'commit'; readonly warnEngineRefusal: boolean }
  | { readonly action: 'fail-over'; readonly dropPeer: boolean; readonly warnEngineRefusal: boolean };

/**
 * decideOnStatus plus the peer rules (spec, Failover). A peer's own 401/403/404 (unmarked) says
 * it stopped trusting this Hub, not that the request is bad: move on and drop its cached
 * capabilities until its next good poll. A 401/403 one of its engines gave (marked) moves on
 * but keeps the pairing, and from the last candidate goes back to the app as the engine's
 * answer instead of a 502. Either way an engine refusal is worth a warning about the key.
 */
export function decideOnAnswer(status: number, ctx: AnswerContext): AnswerDecision {
  if (decideOnStatus(status) === 'fail-over') return { action: 'fail-over', dropPeer: false, warnEngineRefusal: false };
  if (!ctx.fromPeer) return { action: 'commit', warnEngineRefusal: false };
  const refusal = status === 401 || status === 403;
  if (ctx.engineMarked) {
    if (!refusal) return { action: 'commit', warnEngineRefusal: false };
    return ctx.last ? { action: 'commit', warnEngineRefusal: true } : { action: 'fail-over', dropPeer: false, warnEngineRefusal: true };
  }
  if (refusal || status === 404) return { action: 'fail-over', dropPeer: true, warnEngineRefusal: false };
  return { action: 'commit', warnEngineRefusal: false };
}
