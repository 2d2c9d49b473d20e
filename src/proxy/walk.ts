/**
 * The failover walk for one request, as a lifecycle in the style of an undici dispatch
 * handler: each candidate gets an attempt (its queue-depth count is held from here), then
 * headers (a status that ends the walk or moves it on), then a body (read whole up to a bound,
 * or relayed as it comes); and the walk settles exactly once, whichever way it ended. Settling
 * is the one place an attempt's count is released, and `run()` settles in a finally, so no
 * path (a hang-up at any point, a throw) can leave a count held or a row pending.
 *
 * Once status and headers have gone to the app nothing is retried: a stream that dies
 * afterwards is left to die. A caller that hangs up aborts the upstream request (a long
 * prefill nobody will read is expensive), is never failed over, and is recorded with the node
 * it was waiting on.
 */
import { performance } from 'node:perf_hooks';
import type { OutgoingHttpHeaders } from 'node:http';
import { targetOf } from '../util/undici-lean.js';
import { describeTransportError } from '../engines/probe-fetch.js';
import { ADAPTERS } from '../engines/adapters.js';
import { ENGINE_KINDS, type EngineKind } from '../engines/engine-kind.js';
import type { Candidate } from '../placement/types.js';
import { decideOnAnswer, describeFailure, type AttemptFailure } from './failover-policy.js';
import { clearFaults, faultMarks, strikeOutput, strikeUnservable, type FaultMarks } from './fault-records.js';
import { readAnswer, StreamJudge } from './output-check.js';
import { dropBody, readUpTo, readWithin, relayBody } from './relay-body.js';
import { UpstreamExchange } from './upstream-exchange.js';
import { classifyVerdict, DEFINITIVE_VERDICTS, VERDICT_BODY_LIMIT_BYTES, VERDICT_BODY_TIMEOUT_MS, verdictStatus } from './request-verdict.js';
import { relayHeaders } from './response-headers.js';
import { PROXY_PREFIX } from './route-table.js';
import { isQueueFull, QUEUE_FULL_STATUS } from './queue-full.js';
import { answerVerdict } from './verdict-answer.js';
import { VerdictTracker } from './verdict-tracker.js';
import { modelHeaderValue } from './model-header.js';
import { forwardStallMs, STALL_HEADER } from './forward-stall.js';
import { answerExhausted, passedOver, settledRow, toAttempt, unservedHeaders } from './walk-rows.js';
import { readEngineTimings } from './walk-timings.js';
import type {
  AttemptStart,
  BodyFault,
  FailedAttempt,
  VerdictResponse,
  WalkDeps,
  WalkEnd,
  WalkObserver,
  WalkOutcome,
  WalkRequest,
  WalkSettled,
} from './walk-types.js';

export type { RowWriter, WalkDeps, WalkObserver, WalkRequest, WalkSettled } from './walk-types.js';

/**
 * How much of a non-streamed completion is read whole before anything is sent: 2 MiB. Reading
 * it whole is what lets a cut-off or unusable answer fail over (spec, "A 200 that is not an
 * answer"), and 2 MiB is several times the largest plain answer (64k tokens at ~4 bytes, with
 * JSON escapes, is ~0.5 MB). Past it the answer is committed and relayed as it comes, unjudged:
 * refusing an answer the engine already spent minutes generating helps nobody, and holding it
 * is how 1.5 GB from one engine made a 3.2 GB Hub (issue 9). Log-probabilities can pass it.
 */
export const WHOLE_ANSWER_LIMIT_BYTES = 2 * 1024 * 1024;

const STREAM_CONTENT_TYPES = /^(application\/x-ndjson|text\/event-stream)/i;

/** The log line for a candidate the walk moved on from, and for the last one, whose failure ended the walk. */
export const FAILED_OVER_MSG = 'failed over from a candidate';
export const LAST_CANDIDATE_FAILED_MSG = 'the last candidate failed: no candidate left to try';

/** Returned by a step that settled the walk; any other step result is the attempt's failure. */
const ENDED = Symbol('walk settled');
type Step = AttemptFailure | typeof ENDED;

/** The attempt in progress: its count, and what it has answered so far. */
interface CurrentAttempt {
  readonly start: AttemptStart;
  readonly release: () => void;
  /** The candidate as it answered: a peer's answer names the engine that served it. */
  answered: Candidate;
  status: number | null;
  /** ms from the request's arrival to when this attempt began, and to its response headers. */
  readonly startedMs: number;
  headersMs: number | null;
  /** Where each withholding record's strikes stood as the attempt began: its clean answer ends only what came before it. */
  readonly marks: FaultMarks;
}

export function walk(deps: WalkDeps, req: WalkRequest): Promise<void> {
  return new RequestWalk(deps, req).run();
}

class RequestWalk {
  readonly #deps: WalkDeps;
  readonly #req: WalkRequest;
  readonly #verdicts: VerdictTracker<VerdictResponse>;
  readonly #failures: FailedAttempt[] = [];
  #current: CurrentAttempt | null = null;
  #settled = false;
  /** The walk's log lines name the trace, so a peer's line can be found from the app's trace id. */
  readonly #log: WalkDeps['logger'];
  /** Where the answer's engine timings are read from, once it was read or relayed. */
  #finalFrames: (() => unknown[]) | null = null;

  constructor(deps: WalkDeps, req: WalkRequest) {
    this.#deps = deps;
    this.#req = req;
    const traceId = req.trace?.traceId ?? null;
    this.#log = traceId === null ? deps.logger : deps.logger.child({ traceId });
    this.#verdicts = new VerdictTracker(req.order, req.windowOf);
  }

  async run(): Promise<void> {
    const { order, caller } = this.#req;
    try {
      for (let index = 0; index < order.length && !caller.gone; index++) {
        const step = await this.#attempt(order[index]!, index);
        if (step === ENDED) return;
        this.#failOver(step);
      }
      this.#settle(caller.gone ? 'hung-up' : order.length === 0 ? 'no-candidate' : 'exhausted');
    } catch (err) {
      // The route answers a walk that broke with a 500; it names the row that says so, as a 502 does.
      const { res } = this.#req;
      if (!res.headersSent) for (const [name, value] of Object.entries(unservedHeaders(this.#req))) res.setHeader(name, value!);
      throw err;
    } finally {
      // Only a throw gets here unsettled; the count and the row must not outlive it.
      if (!this.#settled) this.#settle('broken');
    }
  }

  // ---- attempt ------------------------------------------------------------------------------

  async #attempt(candidate: Candidate, index: number): Promise<Step> {
    const req = this.#req;
    const start: AttemptStart = { requestId: req.requestId, model: req.model, candidate, index };
    this.#current = {
      start,
      release: this.#deps.inFlight.acquire(candidate.backendId ?? candidate.node),
      answered: candidate,
      status: null,
      startedMs: this.#elapsed(),
      headersMs: null,
      marks: faultMarks(this.#deps),
    };
    this.#tell((o) => o.onAttempt?.(start));

    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(req.accept ? { accept: req.accept } : {}),
      ...req.trace?.attemptStarted(index),
    };
    let path: string;
    if (candidate.peerId !== null) {
      // A peer serves from its own engines under /local/*, and logs the work under our request id.
      path = `${PROXY_PREFIX}/local${req.route.path}`;
      const auth = await this.#peerAuth(candidate.peerId, path);
      if (req.caller.gone) return this.#settle('hung-up');
      if (typeof auth === 'string') return { kind: 'no-credentials', why: auth };
      Object.assign(headers, auth, { 'x-hub-pool-request-id': req.requestId, 'x-hub-pool-model': modelHeaderValue(req.model) });
      // How long this Hub waits on its own app that stops reading (the request's budget, #relay),
      // so the peer waits longer on this Hub and the cut is this Hub's (forward-stall.ts).
      headers[STALL_HEADER] = String(req.budgetMs);
    } else {
      path = ADAPTERS[candidate.engine!].upstreamPath(req.route.path) ?? req.route.path;
    }
    let answer: UpstreamExchange;
    try {
      // An engine URL may carry a path of its own (behind a reverse proxy): split the whole URL.
      const target = targetOf(`${candidate.url}${path}`);
      // Written out, not { ...target, headers, ... }: on Node 20 a literal that starts with a
      // spread gets a hidden class of its own, and V8's IC log showed the exchange's reads of it
      // going megamorphic on every request (bench/README.md, 2026-12-03).
      answer = await new UpstreamExchange(this.#deps.dispatcher, {
        origin: target.origin,
        path: target.path,
        headers,
        body: req.body,
        signal: req.caller.signal,
        headersTimeoutMs: req.budgetMs,
        // An answer that stops arriving for as long as its headers were allowed is stalled, not
        // slow: a whole answer comes right behind its headers (issue 9), and a stream's longest
        // fair gap is the prefill the budget is sized for (an engine that sends headers first).
        // Without the bound a stream whose engine went silent held its queue slot and pending row
        // for as long as the app kept the connection open, for good with no client timeout.
        bodyTimeoutMs: req.budgetMs,
      }).answered;
    } catch (err) {
      if (req.caller.gone) return this.#settle('hung-up');
      const code = (err as { code?: unknown }).code;
      return code === 'UND_ERR_HEADERS_TIMEOUT' ? { kind: 'deadline', budgetMs: req.budgetMs } : { kind: 'transport', reason: describeTransportError(err) };
    }
    return this.#onHeaders(answer);
  }

  async #peerAuth(peerId: string, path: string): Promise<Record<string, string> | string> {
    try {
      return await this.#deps.peerAuth(peerId, 'POST', path, this.#req.body);
    } catch (err) {
      this.#log.error({ err, requestId: this.#req.requestId }, 'computing a peer credential failed');
      return 'this Hub failed to sign the forward';
    }
  }

  // ---- headers ------------------------------------------------------------------------------

  #onHeaders(answer: UpstreamExchange): Step | Promise<Step> {
    const at = this.#current!;
    const { candidate } = at.start;
    const status = answer.statusCode;
    const backend = candidate.peerId !== null ? engineKindOf(answer.headers['x-hub-pool-backend']) : candidate.engine;
    at.answered = backend === candidate.engine ? candidate : { ...candidate, engine: backend };
    at.status = status;
    at.headersMs = this.#elapsed();
    // A 500 an engine gave (locally, or marked by a peer; never a Hub's own 500) may be a verdict on
    // the request. A Hub serving a peer's forward reads it too, to know whether to strike its
    // engine, and relays a verdict untouched: the entry Hub judges it against the whole pool.
    if (status === 500 && backend !== null) return this.#onVerdictBody(answer, backend);
    const decision = decideOnAnswer(status, {
      fromPeer: candidate.peerId !== null,
      engineMarked: backend !== null,
      last: at.start.index === this.#req.order.length - 1,
    });
    if (decision.warnEngineRefusal) this.#deps.onEngineRefusal(candidate.node, backend, status);
    if (decision.action === 'fail-over') {
      // 408 and 429 are an engine talking about its queue, not about the model; so is a full queue's 503.
      if (candidate.backendId !== null && status === QUEUE_FULL_STATUS) return this.#onLocal503(answer);
      dropBody(answer);
      if (candidate.backendId !== null && status >= 500) strikeUnservable(this.#deps, this.#req, candidate, `HTTP ${status}`);
      if (decision.dropPeer && candidate.peerId !== null) this.#deps.onPeerRefused(candidate.peerId);
      return { kind: 'status', status, peerRefused: decision.dropPeer };
    }
    const contentType = String(answer.headers['content-type'] ?? '');
    const relayAsStream = this.#req.stream || STREAM_CONTENT_TYPES.test(contentType) || !this.#req.route.completion;
    return relayAsStream ? this.#relay(answer, [], true) : this.#readWhole(answer);
  }

  // ---- body ---------------------------------------------------------------------------------

  /** A local engine's 503 strikes the model unless its body is the engine's queue-full refusal. */
  async #onLocal503(answer: UpstreamExchange): Promise<Step> {
    const bytes = await readWithin(answer, VERDICT_BODY_LIMIT_BYTES, VERDICT_BODY_TIMEOUT_MS);
    if (this.#req.caller.gone) return this.#settle('hung-up');
    if (bytes === null || !isQueueFull(bytes)) strikeUnservable(this.#deps, this.#req, this.#current!.start.candidate, `HTTP ${QUEUE_FULL_STATUS}`);
    return { kind: 'status', status: QUEUE_FULL_STATUS, peerRefused: false };
  }

  async #onVerdictBody(answer: UpstreamExchange, backend: EngineKind): Promise<Step> {
    const at = this.#current!;
    const { candidate, index } = at.start;
    // Longer or slower than a verdict could be: no verdict.
    const bytes = await readWithin(answer, VERDICT_BODY_LIMIT_BYTES, VERDICT_BODY_TIMEOUT_MS);
    if (this.#req.caller.gone) return this.#settle('hung-up');
    const signature = bytes === null ? null : classifyVerdict(bytes);
    // A model a local engine keeps failing is withheld there; a verdict on the request says nothing
    // about the model, except a template that would not render (the node's own copy may be broken).
    if (candidate.backendId !== null && (signature === null || signature === 'chat-template')) {
      strikeUnservable(this.#deps, this.#req, candidate, `HTTP 500${signature ? ` (${signature})` : ''}`);
    }
    if (signature !== null && bytes !== null && this.#req.rowNode !== null) {
      // Serving a peer's forward: another engine here may still answer a verdict only some
      // engines give; from the last, or at once for one no engine could answer otherwise, the
      // engine's own 500 goes back to the sender as it came (marked with the engine). Walked on,
      // a definitive verdict was lost when the next engine here failed and this Hub answered 502.
      if (index < this.#req.order.length - 1 && !DEFINITIVE_VERDICTS.has(signature)) return { kind: 'engine-500', signature };
      const out = this.#outHeaders(answer);
      out['content-length'] = bytes.length;
      this.#req.res.writeHead(500, out);
      this.#req.res.end(bytes);
      return this.#settle('committed');
    }
    if (signature !== null && bytes !== null) {
      const decision = this.#verdicts.onVerdict(index, signature, backend, { headers: answer.headers, bytes, backend });
      if (decision.action === 'answer') {
        answerVerdict(this.#req, decision.verdict);
        return this.#settle('verdict', { verdict: { signature, basis: decision.basis, confirms: decision.confirms } });
      }
    }
    return { kind: 'engine-500', signature };
  }

  /**
   * A non-streamed completion arrives with its headers anyway: read it whole (up to
   * WHOLE_ANSWER_LIMIT_BYTES) before committing, so an engine that drops the connection
   * part-way, stalls, or answers with output nobody can use can still be failed over.
   */
  async #readWhole(answer: UpstreamExchange): Promise<Step> {
    const at = this.#current!;
    const status = answer.statusCode;
    const judged = this.#judged();
    const read = await readUpTo(answer, WHOLE_ANSWER_LIMIT_BYTES);
    if (read.kind === 'over-limit') return this.#relay(answer, read.head, false);
    if (read.kind === 'failed') {
      if (this.#req.caller.gone) return this.#settle('hung-up');
      if (judged) strikeOutput(this.#deps, this.#req, at.answered, 'truncated-upstream');
      if (at.start.index === this.#req.order.length - 1) return this.#relayCut(answer, read.head, judged);
      return (read.error as { code?: unknown } | null)?.code === 'UND_ERR_BODY_TIMEOUT'
        ? { kind: 'body-stalled', status, idleMs: this.#req.budgetMs }
        : { kind: 'body-dropped', status, reason: describeTransportError(read.error) };
    }
    const reading = judged ? readAnswer(this.#req.route.dialect, read.bytes) : null;
    const fault = reading?.fault ?? null;
    if (fault !== null) {
      strikeOutput(this.#deps, this.#req, at.answered, fault);
      // From the last candidate the answer goes to the app as the engine gave it, recorded as the node's fault.
      if (at.start.index < this.#req.order.length - 1) return { kind: 'output-fault', status, fault };
    }
    const out = this.#outHeaders(answer);
    out['content-length'] = read.bytes.length;
    this.#req.res.writeHead(status, out);
    this.#req.res.end(read.bytes);
    // Only a sound answer in the dialect is a clean one: a body that was not judged ends no withhold.
    if (reading?.judged === true && fault === null) clearFaults(this.#deps, this.#req, at.answered, at.marks);
    this.#finalFrames = reading === null ? () => [parseJson(read.bytes)] : () => [reading.doc];
    return this.#settle('committed', { bodyFault: fault === null ? null : { kind: 'output', fault } });
  }

  /**
   * From the last candidate, a whole answer that was cut off (dropped or stalled part-way) goes
   * to the app as the engine gave it: its headers, what arrived, and then the cut, so the app's
   * client sees a broken answer rather than a complete one. The row settles failed on this node
   * as an output fault, as a cut stream does; it used to end the walk as exhausted, naming no
   * node and counting in no outputFaults.
   */
  #relayCut(answer: UpstreamExchange, head: readonly Buffer[], judged: boolean): typeof ENDED {
    const res = this.#req.res;
    res.writeHead(answer.statusCode, this.#outHeaders(answer));
    for (const chunk of head) res.write(chunk);
    this.#settle('committed', { bodyFault: judged ? { kind: 'output', fault: 'truncated-upstream' } : { kind: 'dropped' } });
    // Ending the socket, not the response: what was written goes out first, then the close comes
    // where the body should have gone on (short of its length, or with no last chunk).
    res.socket?.end();
    return ENDED;
  }

  /**
   * Commits: the app gets status and attribution now, not with the first token (which a long
   * prefill can hold back for minutes), and a stream cut early still reads as a cut. Then the
   * body follows as it comes, after `head` (what was already read of it). A stream cannot be
   * recalled once sent: it is judged on the way past, and recorded; an answer past the
   * whole-read bound is not judged at all (`judgeable` false).
   */
  async #relay(answer: UpstreamExchange, head: readonly Buffer[], judgeable: boolean): Promise<Step> {
    const at = this.#current!;
    const req = this.#req;
    req.res.writeHead(answer.statusCode, this.#outHeaders(answer));
    // The row stays pending while the body streams, for minutes on a long answer: it says now
    // which attempt is answering and what was passed over to reach it, as settling will.
    this.#deps.rows.update(req.requestId, {
      node: req.rowNode ?? at.answered.node,
      backend: at.answered.engine,
      backendId: at.answered.backendId,
      attempt: at.start.index + 1,
      failedOverFrom: this.#failures.map((f) => f.candidate.node),
      attempts: this.#failures.map(toAttempt),
      status: answer.statusCode,
      durationMs: at.headersMs,
    });
    const judge = judgeable && this.#judged() ? new StreamJudge(req.route.dialect) : null;
    if (judge !== null) this.#finalFrames = () => judge.lastFrames();
    // An app gets as long to take a byte as an engine gets to send one. On a peer serving a
    // forward the reader is the sending Hub, which cuts its own stalled app at its own budget and
    // states it on the forward: twice the larger of that and this Hub's budget lets its cut arrive
    // first, so its row reads as the app's hang-up, not as this peer dropping the stream.
    const stallMs = req.rowNode === null ? req.budgetMs : forwardStallMs(req.budgetMs, req.senderStallMs);
    await relayBody(answer, req.res, { judge, head, stallMs }, (dropped, stalledMs) => {
      if (req.caller.gone) {
        this.#settle('hung-up', { stoppedReadingMs: stalledMs });
        return;
      }
      const fault = judge === null ? null : dropped ? 'truncated-upstream' : judge.finish();
      if (fault !== null) strikeOutput(this.#deps, req, at.answered, fault);
      // An embedding has no output to judge: a complete 200 is its clean answer, and ends a withhold like any other success.
      else if (judge?.judged === true || (!req.route.completion && !dropped && answer.statusCode === 200)) clearFaults(this.#deps, req, at.answered, at.marks);
      const bodyFault: BodyFault | null = fault !== null ? { kind: 'output', fault } : dropped ? { kind: 'dropped' } : null;
      this.#settle('committed', { bodyFault });
    });
    return ENDED;
  }

  // ---- settle -------------------------------------------------------------------------------

  #failOver(failure: AttemptFailure): void {
    const at = this.#current!;
    this.#failures.push({ candidate: at.answered, failure });
    // The last candidate's failure ends the walk rather than moving it on: the row, the metrics
    // and `cihub pool log` count no failover for it, so its line must not claim one either.
    const last = at.start.index === this.#req.order.length - 1;
    this.#log.warn(
      { requestId: this.#req.requestId, node: at.answered.node, backend: at.answered.engine, status: at.status, reason: describeFailure(failure) },
      last ? LAST_CANDIDATE_FAILED_MSG : FAILED_OVER_MSG,
    );
    this.#endAttempt(failure);
  }

  /** Ends the attempt in progress: the one place its queue-depth count is released. */
  #endAttempt(failure: AttemptFailure | null): void {
    const at = this.#current;
    if (at === null) return;
    this.#current = null;
    at.release();
    this.#req.trace?.attemptEnded({
      node: at.answered.node,
      backend: at.answered.engine,
      status: at.status,
      failedOver: failure === null ? null : describeFailure(failure),
    });
    this.#tell((o) => o.onAttemptEnd?.(at.start, failure));
  }

  /** Settles the walk, once: releases the count, stops watching the caller, settles the row, tells the observers. */
  #settle(end: WalkEnd, extra: { bodyFault?: BodyFault | null; verdict?: WalkOutcome['verdict']; stoppedReadingMs?: number | null } = {}): typeof ENDED {
    if (this.#settled) return ENDED;
    this.#settled = true;
    const req = this.#req;
    const at = this.#current;
    const frames = this.#finalFrames;
    // The row says what the app saw (spec, "Client hang-ups"): a caller that left before this Hub
    // wrote it any response headers got no status, even when the engine had already answered and
    // the walk was reading its body whole or reading a 500 for a verdict.
    const appGotHeaders = end !== 'hung-up' || req.res.headersSent;
    // One record for the row, the trace and the observers: building the outcome and then
    // spreading it into the observers' copy was a second object of 17 fields on every request.
    const outcome: WalkSettled = {
      end,
      served: at?.answered ?? null,
      attempt: at === null ? null : at.start.index + 1,
      status: appGotHeaders ? (at?.status ?? null) : null,
      headersMs: appGotHeaders ? (at?.headersMs ?? null) : null,
      attemptHeadersMs: at === null || at.headersMs === null ? null : at.headersMs - at.startedMs,
      totalMs: this.#elapsed(),
      bodyFault: extra.bodyFault ?? null,
      verdict: extra.verdict ?? null,
      failures: this.#failures,
      stoppedReadingMs: extra.stoppedReadingMs ?? null,
      requestId: req.requestId,
      model: req.model,
      route: req.route,
      stream: req.stream,
      bodyBytes: req.body.length,
      budgetMs: req.budgetMs,
      engineTimings: () => (frames === null ? null : readEngineTimings(frames())),
    };
    this.#endAttempt(null);
    req.caller.detach();
    if (end === 'hung-up') {
      const stoppedReadingMs = outcome.stoppedReadingMs;
      if (stoppedReadingMs === null) {
        this.#log.info(
          { requestId: req.requestId, node: outcome.served?.node ?? null, afterMs: outcome.totalMs, answered: outcome.status !== null },
          'the caller closed its connection before the answer was complete',
        );
      } else {
        this.#log.info(
          { requestId: req.requestId, node: outcome.served?.node ?? null, afterMs: outcome.totalMs, stoppedReadingMs },
          `the caller stopped reading for at least ${stoppedReadingMs} ms: this Hub closed its connection before the answer was complete`,
        );
      }
    } else if (end === 'verdict') {
      this.#log.info(
        { requestId: req.requestId, node: outcome.served?.node, signature: outcome.verdict?.signature, basis: outcome.verdict?.basis },
        "answered with an engine's verdict on the request",
      );
    }
    // The observers hold per-request state (throughput, engine work, affinity) that only their
    // onSettled releases, so they are told even if recording or answering below throws.
    try {
      const row = settledRow(req, outcome);
      this.#deps.rows.settle(req.requestId, row);
      req.trace?.ended({
        requestId: req.requestId,
        outcome: row.outcome === 'served' ? 'served' : 'failed',
        // The node that served, even on an inbound row (whose node names the sender): 'local' there.
        node: outcome.served?.node ?? null,
        backend: row.backend ?? null,
        // The status the app got: the walk's own 502 when it answered one, and a verdict's 400 (the
        // row keeps the engine's 500, which X-Hub-Pool-Upstream-Status tells the app).
        status: end === 'exhausted' || end === 'no-candidate' ? 502 : end === 'verdict' ? verdictStatus(outcome.verdict!.signature) : (row.status ?? null),
        attempt: row.attempt ?? null,
        failedOver: passedOver(outcome).length,
        reason: row.reason ?? null,
      });
      if (end === 'no-candidate' && req.answerNoCandidate) req.answerNoCandidate();
      else if (end === 'exhausted' || end === 'no-candidate') answerExhausted(req, this.#failures);
    } finally {
      if (this.#deps.observers.length > 0) this.#tell((o) => o.onSettled?.(outcome));
    }
    return ENDED;
  }

  /** Calls each observer; one that throws is logged and skipped (some calls run inside stream events, where a throw would end the process). */
  #tell(call: (o: WalkObserver) => void): void {
    for (const o of this.#deps.observers) {
      try {
        call(o);
      } catch (err) {
        this.#log.error({ err, requestId: this.#req.requestId }, 'a walk observer failed');
      }
    }
  }

  // ---- small facts --------------------------------------------------------------------------

  #elapsed(): number {
    return Math.round(performance.now() - this.#req.startedAt);
  }

  /** Completions answered 200 are checked for output nobody can use. */
  #judged(): boolean {
    return this.#req.route.completion && this.#current!.status === 200;
  }

  #outHeaders(answer: UpstreamExchange): OutgoingHttpHeaders {
    const { answered } = this.#current!;
    return relayHeaders(answer.headers, {
      servedBy: answered.node,
      backend: answered.engine,
      model: this.#req.model,
      requestId: this.#req.requestId,
      affinity: this.#req.affinity,
    });
  }
}

function engineKindOf(header: string | string[] | undefined): EngineKind | null {
  return typeof header === 'string' && (ENGINE_KINDS as readonly string[]).includes(header) ? (header as EngineKind) : null;
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}
