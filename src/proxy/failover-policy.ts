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
