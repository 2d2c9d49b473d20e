/**
 * The routing-log row a walk leaves, decided from its outcome record alone (pure), and the
 * 502 for a walk that ran out of candidates.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { Attempt, RequestError } from '../routing-log/entry.js';
import type { SettlePatch } from '../routing-log/ring.js';
import { describeFailure, failureStatus } from './failover-policy.js';
import { writeProxyError } from './proxy-errors.js';
import type { FailedAttempt, WalkOutcome, WalkRequest } from './walk-types.js';

export function toAttempt({ candidate, failure }: FailedAttempt): Attempt {
  return { node: candidate.node, backend: candidate.engine, status: failureStatus(failure), reason: describeFailure(failure) };
}

/** What settling sets beyond the fields every walk sets, by how it ended. */
interface Ending {
  readonly outcome: 'served' | 'failed';
  readonly requestError: RequestError | null;
  readonly reason: string | null;
  readonly clientClosed: boolean;
  readonly stoppedReadingMs: number | null;
}

/**
 * The patch that settles a walk's row: one object literal of fixed shape, whichever way the
 * walk ended. Built as { ...common, ...ending } each patch had a hidden class of its own (on
 * Node 20 a literal that starts with a spread does), so the ring's reads of it missed every
 * inline cache: 4.3-6.5 µs a settle against 0.3-0.8 µs for a literal (2026-12-03).
 */
export function settledRow(req: WalkRequest, o: WalkOutcome): SettlePatch {
  const e = endingOf(req, o);
  return {
    node: req.rowNode ?? o.served?.node ?? null,
    backend: o.served?.engine ?? null,
    backendId: o.served?.backendId ?? null,
    attempt: o.end === 'exhausted' ? o.failures.length : o.attempt,
    failedOverFrom: passedOver(o).map((f) => f.candidate.node),
    attempts: o.failures.map(toAttempt),
    status: o.status,
    durationMs: o.headersMs,
    totalMs: o.totalMs,
    outcome: e.outcome,
    requestError: e.requestError,
    reason: e.reason,
    clientClosed: e.clientClosed,
    stoppedReadingMs: e.stoppedReadingMs,
  };
}

/**
 * The failures the walk moved on from. A walk that ran out ended on its last failure, which is
 * the row's reason and had nothing after it to fail over to, so it is not among them; attempts
 * still lists it, one entry past failedOverFrom. Any other end came after the last failure.
 */
export function passedOver(o: WalkOutcome): readonly FailedAttempt[] {
  return o.end === 'exhausted' ? o.failures.slice(0, -1) : o.failures;
}

function endingOf(req: WalkRequest, o: WalkOutcome): Ending {
  switch (o.end) {
    case 'committed':
      return committed(req, o);
    case 'verdict': {
      const v = o.verdict!;
      return failed(`HTTP 500 (${v.signature})`, v);
    }
    case 'hung-up':
      return {
        outcome: 'failed',
        requestError: null,
        // Still the caller's doing when this Hub closed a reader that had stopped: the field and the reason say which.
        clientClosed: true,
        stoppedReadingMs: o.stoppedReadingMs,
        reason:
          o.stoppedReadingMs !== null
            ? `the caller stopped reading for at least ${o.stoppedReadingMs} ms`
            : o.status === null
              ? 'the caller closed its connection before any answer'
              : 'the caller closed its connection mid-answer',
      };
    case 'exhausted': {
      const last = o.failures[o.failures.length - 1];
      return failed(last ? describeFailure(last.failure) : null);
    }
    case 'no-candidate':
      return failed('no candidate holds the model');
    case 'broken':
      return failed('this Hub failed while relaying the answer (see its log)');
  }
}

function failed(reason: string | null, requestError: RequestError | null = null): Ending {
  return { outcome: 'failed', requestError, reason, clientClosed: false, stoppedReadingMs: null };
}

function committed(req: WalkRequest, o: WalkOutcome): Ending {
  const status = o.status!;
  const refused = status >= 400;
  const entry = req.rowNode === null;
  const fault = o.bodyFault;
  // Inbound rows never carry a requestError: the entry Hub judges the request, this Hub only served it.
  const requestError: RequestError | null =
    fault?.kind === 'output' && entry
      ? { signature: fault.fault, basis: 'node', confirms: null }
      : refused && entry
        ? { signature: 'client-error', basis: 'status', confirms: null }
        : null;
  return {
    outcome: refused || fault !== null ? 'failed' : 'served',
    requestError,
    clientClosed: false,
    stoppedReadingMs: null,
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

/**
 * The headers an answer that no node served carries: the row's id, a failed call being the one
 * most worth looking up, and the affinity outcome when affinity applied.
 */
export function unservedHeaders(req: Pick<WalkRequest, 'requestId' | 'affinity'>): OutgoingHttpHeaders {
  return { 'x-hub-pool-request-id': req.requestId, ...(req.affinity ? { 'x-hub-pool-affinity': req.affinity } : {}) };
}

/** The app's 502 when every candidate failed; a walk that only met deadlines says so, since a deadline is not proof a node is down. */
export function answerExhausted(req: WalkRequest, failures: readonly FailedAttempt[]): void {
  const last = failures[failures.length - 1];
  const allDeadlines = failures.length > 0 && failures.every((f) => f.failure.kind === 'deadline');
  const message = allDeadlines
    ? `No pool candidate answered for model "${req.model}" within its deadline (${req.budgetMs} ms each, ${failures.length} tried). A deadline is not proof a node is down: a long prompt can take minutes to reach its first token.`
    : `All ${failures.length} pool candidates for model "${req.model}" failed; the last: ${last?.candidate.node ?? '?'} (${last ? describeFailure(last.failure) : 'no reason'})`;
  writeProxyError(req.res, req.route.dialect, 502, 'HUB_ERR_ALL_CANDIDATES_FAILED', message, {}, unservedHeaders(req));
}
