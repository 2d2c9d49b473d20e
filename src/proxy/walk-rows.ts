/**
 * How a walk settles its routing-log row, exactly once, whichever way it ended: served,
 * refused, faulty, abandoned by the caller, or run out of candidates (the 502).
 */
import type { Attempt } from '../routing-log/entry.js';
import type { Candidate } from '../placement/types.js';
import { writeProxyError } from './proxy-errors.js';
import type { BodyFault, WalkDeps, WalkRequest } from './walk-types.js';

/** The fields every settled row shares: who it ends on, and who was passed over before. */
function walked(req: WalkRequest, candidate: Candidate, index: number, attempts: Attempt[]) {
  return { node: req.rowNode ?? candidate.node, backend: candidate.engine, attempt: index + 1, failedOverFrom: attempts.map((a) => a.node), attempts: [...attempts] };
}

export function recordFailover(deps: WalkDeps, req: WalkRequest, candidate: Candidate, attempts: Attempt[], outcome: { status: number | null; reason: string }): void {
  const attempt: Attempt = { node: candidate.node, backend: candidate.engine, status: outcome.status, reason: outcome.reason };
  attempts.push(attempt);
  deps.logger.warn({ requestId: req.requestId, node: candidate.node, backend: candidate.engine, status: outcome.status, reason: outcome.reason }, 'failed over from a candidate');
}

export function settleCommitted(
  deps: WalkDeps,
  req: WalkRequest,
  candidate: Candidate,
  index: number,
  attempts: Attempt[],
  status: number,
  durationMs: number,
  totalMs: number,
  bodyFault: BodyFault | null,
): void {
  const refused = status >= 400;
  const entry = req.rowNode === null;
  // Inbound rows never carry a requestError: the entry Hub judges the request, this Hub only served it.
  const requestError =
    bodyFault?.kind === 'output' && entry
      ? { signature: bodyFault.fault, basis: 'node' as const, confirms: null }
      : refused && entry
        ? { signature: 'client-error', basis: 'status' as const, confirms: null }
        : null;
  deps.rows.settle(req.requestId, {
    ...walked(req, candidate, index, attempts),
    status,
    durationMs,
    totalMs,
    outcome: refused || bodyFault !== null ? 'failed' : 'served',
    requestError,
    reason: bodyFault?.kind === 'output' ? `output fault (${bodyFault.fault})` : bodyFault?.kind === 'dropped' ? "the engine's connection dropped mid-body" : refused ? `HTTP ${status}` : null,
  });
}

export function settleHangUp(deps: WalkDeps, req: WalkRequest, candidate: Candidate, index: number, attempts: Attempt[], status: number | null, totalMs: number): void {
  deps.logger.info({ requestId: req.requestId, node: candidate.node, afterMs: totalMs, answered: status !== null }, 'the caller closed its connection before the answer was complete');
  deps.rows.settle(req.requestId, {
    ...walked(req, candidate, index, attempts),
    status,
    totalMs,
    outcome: 'failed',
    clientClosed: true,
    reason: status === null ? 'the caller closed its connection before any answer' : 'the caller closed its connection mid-answer',
  });
}

export function answerAllFailed(deps: WalkDeps, req: WalkRequest, attempts: Attempt[], totalMs: number): void {
  const last = attempts[attempts.length - 1];
  const allDeadlines = attempts.length > 0 && attempts.every((a) => a.status === null && a.reason.startsWith('No response headers'));
  const message = allDeadlines
    ? `No pool candidate answered for model "${req.model}" within its deadline (${req.budgetMs} ms each, ${attempts.length} tried). A deadline is not proof a node is down: a long prompt can take minutes to reach its first token.`
    : `All ${attempts.length} pool candidates for model "${req.model}" failed; the last: ${last?.node ?? '?'} (${last?.reason ?? 'no reason'})`;
  deps.rows.settle(req.requestId, {
    node: req.rowNode,
    backend: null,
    status: null,
    durationMs: null,
    attempt: attempts.length,
    failedOverFrom: attempts.map((a) => a.node),
    attempts: [...attempts],
    outcome: 'failed',
    totalMs,
    reason: last?.reason ?? null,
  });
  writeProxyError(req.res, req.route.dialect, 502, 'HUB_ERR_ALL_CANDIDATES_FAILED', message, {}, { 'x-hub-pool-request-id': req.requestId });
}
