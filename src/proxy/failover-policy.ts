/**
 * Whether a candidate's answer ends the walk or moves the request on (spec, Failover).
 * Transport errors, header deadlines, 5xx, 408 and 429 move on; an ordinary 4xx is the
 * request's own fault and goes back to the app, since another machine would refuse it too.
 * Once status and headers have gone to the app nothing is retried.
 */

export type AttemptFailure =
  | { readonly kind: 'transport'; readonly reason: string }
  | { readonly kind: 'deadline'; readonly budgetMs: number };

export type StatusDecision = 'commit' | 'fail-over';

export function decideOnStatus(status: number): StatusDecision {
  if (status >= 500 || status === 408 || status === 429) return 'fail-over';
  return 'commit';
}

/** The few words an attempt's failure is recorded under. Never an engine's message text. */
export function describeFailure(failure: AttemptFailure): string {
  return failure.kind === 'deadline' ? `No response headers within ${failure.budgetMs}ms` : failure.reason;
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
