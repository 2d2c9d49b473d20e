/**
 * The routing-log row a walk leaves, decided from its outcome record alone (pure), and the
 * 502 for a walk that ran out of candidates.
 */
import type { Attempt, RoutingLogEntry } from '../routing-log/entry.js';
import { describeFailure, failureStatus } from './failover-policy.js';
import { writeProxyError } from './proxy-errors.js';
import type { FailedAttempt, WalkOutcome, WalkRequest } from './walk-types.js';

export function toAttempt({ candidate, failure }: FailedAttempt): Attempt {
  return { node: candidate.node, backend: candidate.engine, status: failureStatus(failure), reason: describeFailure(failure) };
}

/** The patch that settles a walk's row. */
export function settledRow(req: WalkRequest, o: WalkOutcome): Partial<RoutingLogEntry> {
  const common = {
    node: req.rowNode ?? o.served?.node ?? null,
    backend: o.served?.engine ?? null,
    attempt: o.attempt,
    failedOverFrom: o.failures.map((f) => f.candidate.node),
    attempts: o.failures.map(toAttempt),
    status: o.status,
    durationMs: o.headersMs,
    totalMs: o.totalMs,
  };
  switch (o.end) {
    case 'committed':
      return { ...common, ...committed(req, o) };
    case 'verdict': {
      const v = o.verdict!;
      return { ...common, outcome: 'failed', requestError: v, reason: `HTTP 500 (${v.signature})` };
    }
    case 'hung-up':
      return {
        ...common,
        outcome: 'failed',
        clientClosed: true,
        reason: o.status === null ? 'the caller closed its connection before any answer' : 'the caller closed its connection mid-answer',
      };
    case 'exhausted': {
      const last = o.failures[o.failures.length - 1];
      return { ...common, attempt: o.failures.length, outcome: 'failed', reason: last ? describeFailure(last.failure) : null };
    }
    case 'no-candidate':
      return { ...common, outcome: 'failed', reason: 'no candidate holds the model' };
    case 'broken':
      return { ...common, outcome: 'failed', reason: 'this Hub failed while relaying the answer (see its log)' };
  }
}

function committed(req: WalkRequest, o: WalkOutcome): Partial<RoutingLogEntry> {
  const status = o.status!;
  const refused = status >= 400;
  const entry = req.rowNode === null;
  const fault = o.bodyFault;
  // Inbound rows never carry a requestError: the entry Hub judges the request, this Hub only served it.
  const requestError =
    fault?.kind === 'output' && entry
      ? { signature: fault.fault, basis: 'node' as const, confirms: null }
      : refused && entry
        ? { signature: 'client-error', basis: 'status' as const, confirms: null }
        : null;
  return {
    outcome: refused || fault !== null ? 'failed' : 'served',
    requestError,
    reason:
      fault?.kind === 'output'
        ? `output fault (${fault.fault})`
        : fault?.kind === 'dropped'
          ? "the engine's connection dropped mid-body"
          : refused
            ? `HTTP ${status}`
            : null,
  };
}

/** The app's 502 when every candidate failed; a walk that only met deadlines says so, since a deadline is not proof a node is down. */
export function answerExhausted(req: WalkRequest, failures: readonly FailedAttempt[]): void {
  const last = failures[failures.length - 1];
  const allDeadlines = failures.length > 0 && failures.every((f) => f.failure.kind === 'deadline');
  const message = allDeadlines
    ? `No pool candidate answered for model "${req.model}" within its deadline (${req.budgetMs} ms each, ${failures.length} tried). A deadline is not proof a node is down: a long prompt can take minutes to reach its first token.`
    : `All ${failures.length} pool candidates for model "${req.model}" failed; the last: ${last?.candidate.node ?? '?'} (${last ? describeFailure(last.failure) : 'no reason'})`;
  writeProxyError(
    req.res,
    req.route.dialect,
    502,
    'HUB_ERR_ALL_CANDIDATES_FAILED',
    message,
    {},
    { 'x-hub-pool-request-id': req.requestId, ...(req.affinity ? { 'x-hub-pool-affinity': req.affinity } : {}) },
  );
}
