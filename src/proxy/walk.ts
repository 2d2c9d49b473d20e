/**
 * The failover walk for one request: try each candidate in placement order, move on when the
 * failover policy says so, and commit to the first answer that ends the walk. Once status
 * and headers have gone to the app nothing is retried: a stream that dies afterwards is left
 * to die. The routing-log row settles exactly once, whichever way the walk ends.
 *
 * A caller that hangs up aborts the engine request (a long prefill nobody will read is
 * expensive), is never failed over, and is recorded with the node it was waiting on.
 */
import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { describeTransportError } from '../engines/probe-fetch.js';
import { ADAPTERS } from '../engines/adapters.js';
import { ENGINE_KINDS, type EngineKind } from '../engines/engine-kind.js';
import type { Attempt } from '../routing-log/entry.js';
import type { Candidate } from '../placement/types.js';
import { decideOnAnswer, describeFailure, type AttemptFailure } from './failover-policy.js';
import { clearFaults, strikeOutput, strikeUnservable } from './fault-records.js';
import { judgeBody, StreamJudge, type OutputFault } from './output-check.js';
import { relayBody } from './relay-body.js';
import { classifyVerdict, VERDICT_BODY_LIMIT_BYTES, VERDICT_BODY_TIMEOUT_MS } from './request-verdict.js';
import { relayHeaders } from './response-headers.js';
import { PROXY_PREFIX } from './route-table.js';
import { answerVerdict, readBounded } from './verdict-answer.js';
import { VerdictTracker } from './verdict-tracker.js';
import { answerAllFailed, recordFailover, settleCommitted, settleHangUp } from './walk-rows.js';
import type { BodyFault, VerdictResponse, WalkDeps, WalkRequest } from './walk-types.js';
import { engineModelKey } from './withhold-book.js';

export type { RowWriter, WalkDeps, WalkRequest } from './walk-types.js';

const STREAM_CONTENT_TYPES = /^(application\/x-ndjson|text\/event-stream)/i;

export async function walk(deps: WalkDeps, req: WalkRequest): Promise<void> {
  const { res, order, requestId } = req;
  const abort = new AbortController();
  let callerGone = false;
  const onClose = () => {
    if (!res.writableFinished) {
      callerGone = true;
      abort.abort();
    }
  };
  res.on('close', onClose);
  const attempts: Attempt[] = [];
  const elapsed = () => Math.round(performance.now() - req.startedAt);
  // An Ollama engine runs a native request at its own num_ctx; any other window this Hub cannot see.
  const windowOf = (c: Candidate) => (c.engine === 'ollama' && req.route.dialect === 'ollama' ? req.numCtx : null);
  const verdicts = new VerdictTracker<VerdictResponse>(order, windowOf);

  for (const [index, candidate] of order.entries()) {
    if (callerGone) break;
    const release = deps.inFlight.acquire(candidate.backendId ?? candidate.node);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(req.accept ? { accept: req.accept } : {}) };
    let path: string;
    if (candidate.peerId !== null) {
      // A peer serves from its own engines under /local/*, and logs the work under our request id.
      path = `${PROXY_PREFIX}/local${req.route.path}`;
      const auth = await deps.peerAuth(candidate.peerId, 'POST', path, req.body);
      if (typeof auth === 'string') {
        release();
        recordFailover(deps, req, candidate, attempts, { status: null, reason: `no credentials for this peer (${auth})` });
        continue;
      }
      Object.assign(headers, auth, { 'x-hub-pool-request-id': requestId, 'x-hub-pool-model': req.model });
    } else {
      path = ADAPTERS[candidate.engine!].upstreamPath(req.route.path) ?? req.route.path;
    }
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(`${candidate.url}${path}`, {
        method: 'POST',
        dispatcher: deps.dispatcher,
        headers,
        body: req.body,
        signal: abort.signal,
        headersTimeout: req.budgetMs,
        bodyTimeout: 0,
      });
    } catch (err) {
      release();
      if (callerGone) return settleHangUp(deps, req, candidate, index, attempts, null, elapsed());
      const failure = failureOf(err, req.budgetMs);
      recordFailover(deps, req, candidate, attempts, { status: null, reason: describeFailure(failure) });
      continue;
    }

    const backend = candidate.peerId !== null ? engineKindOf(answer.headers['x-hub-pool-backend']) : candidate.engine;
    // A 500 an engine gave (locally, or marked by a peer; never a Hub's own 500) may be a verdict on
    // the request. A Hub serving a peer's forward relays it untouched: the entry Hub judges it
    // against the whole pool.
    if (answer.statusCode === 500 && backend !== null && req.rowNode === null) {
      const bytes = await readBounded(answer.body, VERDICT_BODY_LIMIT_BYTES, VERDICT_BODY_TIMEOUT_MS);
      const signature = bytes === null ? null : classifyVerdict(bytes);
      release();
      // A model a local engine keeps failing is withheld there; a verdict on the request says nothing
      // about the model, except a template that would not render (the node's own copy may be broken).
      if (candidate.backendId !== null && (signature === null || signature === 'chat-template')) strikeUnservable(deps, req, candidate.backendId, `HTTP 500${signature ? ` (${signature})` : ''}`);
      if (signature !== null && bytes !== null) {
        const decision = verdicts.onVerdict(index, signature, { headers: answer.headers, bytes, backend });
        if (decision.action === 'answer') {
          res.off('close', onClose);
          return answerVerdict(deps, req, decision.verdict, decision.basis, decision.confirms, attempts, elapsed());
        }
        recordFailover(deps, req, { ...candidate, engine: backend }, attempts, { status: 500, reason: `HTTP 500 (${signature})` });
      } else {
        recordFailover(deps, req, { ...candidate, engine: backend }, attempts, { status: 500, reason: 'HTTP 500' });
      }
      continue;
    }
    const decision = decideOnAnswer(answer.statusCode, { fromPeer: candidate.peerId !== null, engineMarked: backend !== null, last: index === order.length - 1 });
    if (decision.warnEngineRefusal) deps.onEngineRefusal(candidate.node, backend, answer.statusCode);
    if (decision.action === 'fail-over') {
      // Destroying an unread undici body emits an abort error; without a listener it would crash the Hub.
      answer.body.on('error', () => {}).destroy();
      release();
      // 408 and 429 are an engine talking about its queue, not about the model.
      if (candidate.backendId !== null && answer.statusCode >= 500) strikeUnservable(deps, req, candidate.backendId, `HTTP ${answer.statusCode}`);
      if (decision.dropPeer && candidate.peerId !== null) deps.onPeerRefused(candidate.peerId);
      const reason = decision.dropPeer ? `HTTP ${answer.statusCode} (the peer refused this Hub)` : `HTTP ${answer.statusCode}`;
      recordFailover(deps, req, { ...candidate, engine: backend }, attempts, { status: answer.statusCode, reason });
      continue;
    }

    const served: Candidate = { ...candidate, engine: backend };
    const faultKey = engineModelKey(candidate.node, candidate.peerId === null ? backend : null, req.model);
    const judged = req.route.completion && answer.statusCode === 200;
    const headersMs = elapsed();
    const contentType = String(answer.headers['content-type'] ?? '');
    const relayAsStream = req.stream || STREAM_CONTENT_TYPES.test(contentType) || !req.route.completion;
    const out = relayHeaders(answer.headers, { servedBy: candidate.node, backend, model: req.model, requestId });
    if (!relayAsStream) {
      // A non-streamed completion arrives with its headers anyway: read it whole before
      // committing, so an engine that drops the connection part-way, or answers with output
      // nobody can use, can still be failed over.
      let whole: Buffer;
      try {
        whole = Buffer.from(await answer.body.arrayBuffer());
      } catch (err) {
        release();
        if (callerGone) return settleHangUp(deps, req, served, index, attempts, answer.statusCode, elapsed());
        if (judged) strikeOutput(deps, req, faultKey, 'truncated-upstream');
        recordFailover(deps, req, served, attempts, { status: answer.statusCode, reason: `the engine's connection dropped mid-body (${describeTransportError(err)})` });
        continue;
      }
      const fault = judged ? judgeBody(req.route.dialect, whole) : null;
      if (fault !== null) {
        strikeOutput(deps, req, faultKey, fault);
        if (index < order.length - 1) {
          release();
          recordFailover(deps, req, served, attempts, { status: answer.statusCode, reason: `output fault (${fault})` });
          continue;
        }
      }
      out['content-length'] = whole.length;
      res.writeHead(answer.statusCode, out);
      res.end(whole);
      release();
      res.off('close', onClose);
      if (judged && fault === null) clearFaults(deps, req, served, faultKey);
      return settleCommitted(deps, req, served, index, attempts, answer.statusCode, headersMs, elapsed(), fault === null ? null : { kind: 'output', fault });
    }

    res.writeHead(answer.statusCode, out);
    // Committed: the app gets status and attribution now, not with the first token (which a
    // long prefill can hold back for minutes), and a stream cut early still reads as a cut.
    res.flushHeaders();
    deps.rows.update(requestId, { node: req.rowNode ?? candidate.node, backend, status: answer.statusCode, durationMs: headersMs });
    // A stream cannot be recalled once sent: it is judged on the way past, and recorded.
    const judge = judged ? new StreamJudge(req.route.dialect) : null;
    return relayBody(answer.body, res, judge, (dropped) => {
      release();
      res.off('close', onClose);
      if (callerGone) return settleHangUp(deps, req, served, index, attempts, answer.statusCode, elapsed());
      const fault: OutputFault | null = judge === null ? null : dropped ? 'truncated-upstream' : judge.finish();
      if (fault !== null) strikeOutput(deps, req, faultKey, fault);
      else if (judge !== null) clearFaults(deps, req, served, faultKey);
      const bodyFault: BodyFault | null = fault !== null ? { kind: 'output', fault } : dropped ? { kind: 'dropped' } : null;
      settleCommitted(deps, req, served, index, attempts, answer.statusCode, headersMs, elapsed(), bodyFault);
    });
  }

  res.off('close', onClose);
  if (callerGone) {
    const last = order[Math.max(0, attempts.length - 1)] ?? null;
    if (last) return settleHangUp(deps, req, last, attempts.length, attempts, null, elapsed());
  }
  return answerAllFailed(deps, req, attempts, elapsed());
}

function engineKindOf(header: string | string[] | undefined): EngineKind | null {
  return typeof header === 'string' && (ENGINE_KINDS as readonly string[]).includes(header) ? (header as EngineKind) : null;
}

function failureOf(err: unknown, budgetMs: number): AttemptFailure {
  const code = (err as { code?: unknown }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { kind: 'deadline', budgetMs };
  return { kind: 'transport', reason: describeTransportError(err) };
}

