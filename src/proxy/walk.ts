/**
 * The failover walk for one request: try each candidate in placement order, move on when the
 * failover policy says so, and commit to the first answer that ends the walk. Once status
 * and headers have gone to the app nothing is retried: a stream that dies afterwards is left
 * to die. The routing-log row settles exactly once, whichever way the walk ends.
 *
 * A caller that hangs up aborts the engine request (a long prefill nobody will read is
 * expensive), is never failed over, and is recorded with the node it was waiting on.
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { describeTransportError } from '../engines/probe-fetch.js';
import { ADAPTERS } from '../engines/adapters.js';
import type { Attempt, RoutingLogEntry } from '../routing-log/entry.js';
import type { Candidate } from '../placement/types.js';
import { ENGINE_KINDS, type EngineKind } from '../engines/engine-kind.js';
import { decideOnAnswer, describeFailure, type AttemptFailure } from './failover-policy.js';
import { PROXY_PREFIX } from './route-table.js';
import { classifyVerdict, verdictStatus, VERDICT_BODY_LIMIT_BYTES, VERDICT_BODY_TIMEOUT_MS } from './request-verdict.js';
import { VerdictTracker, type HeldVerdict } from './verdict-tracker.js';
import { judgeBody, StreamJudge, type OutputFault } from './output-check.js';
import { engineModelKey, type WithholdBook } from './withhold-book.js';
import type { InFlight } from './in-flight.js';
import { writeProxyError } from './proxy-errors.js';
import { relayHeaders } from './response-headers.js';
import type { RoutedRoute } from './route-table.js';

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
}

/** How a committed answer ended, when it did not end well. */
type BodyFault = { readonly kind: 'output'; readonly fault: OutputFault } | { readonly kind: 'dropped' };

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
  /** On an inbound row, the peer that sent the work: the row names it instead of the engine's node. */
  readonly rowNode: string | null;
  /** options.num_ctx on a native route: the window an Ollama candidate runs the request at. */
  readonly numCtx: number | null;
}

/** A 500 whose body was a verdict on the request, kept while the walk asks another node. */
interface VerdictResponse {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly bytes: Buffer;
  readonly backend: EngineKind | null;
}

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

/**
 * Pipes a committed body to the app and calls `settle` once, when it ended (dropped: false),
 * the engine's side failed (dropped: true) or the app left. Plain pipe() rather than
 * stream.pipeline(): pipeline builds and aborts an AbortController on every normal finish,
 * which showed up as 4 % of the Hub's CPU on streams (bench/README.md). A judge, when given,
 * sees each chunk as it passes; nothing is held back.
 */
function relayBody(body: Dispatcher.ResponseData['body'], res: ServerResponse, judge: StreamJudge | null, settle: (dropped: boolean) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let settled = false;
    const finish = (dropped: boolean) => {
      if (settled) return;
      settled = true;
      settle(dropped);
      resolve();
    };
    if (judge !== null) body.on('data', (chunk: Buffer) => judge.push(chunk));
    body.once('error', () => {
      // Settle before destroying: the destroy closes the response, which must not read as a hang-up.
      finish(!res.writableFinished);
      res.destroy();
    });
    res.once('finish', () => finish(false));
    res.once('close', () => {
      if (!res.writableFinished) {
        body.destroy();
        finish(false);
      }
    });
    body.pipe(res);
  });
}

/** An output fault: two within five minutes withhold that engine for that model, here or on the peer. */
function strikeOutput(deps: WalkDeps, req: WalkRequest, key: string, fault: OutputFault): void {
  if (deps.outputFaults.strike(key, fault)) {
    deps.logger.warn({ requestId: req.requestId, engine: key, fault }, `withholding ${key} after repeated ${fault}: it is asked only when every other candidate fails`);
  }
}

function strikeUnservable(deps: WalkDeps, req: WalkRequest, backendId: string, reason: string): void {
  if (deps.unservable.strike(engineModelKey('local', backendId, req.model), reason)) deps.onWithholdChange(backendId, req.model, true, reason);
}

/** A clean, complete answer ends both records for what served it. */
function clearFaults(deps: WalkDeps, req: WalkRequest, served: Candidate, faultKey: string): void {
  deps.outputFaults.clear(faultKey);
  if (served.backendId !== null && deps.unservable.clear(engineModelKey('local', served.backendId, req.model))) {
    deps.onWithholdChange(served.backendId, req.model, false, 'served');
  }
}

/** Reads at most `limit` bytes of a body within `timeoutMs`; null when it is longer or slower (then no verdict). */
async function readBounded(body: Dispatcher.ResponseData['body'], limit: number, timeoutMs: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => body.destroy(), timeoutMs);
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        body.destroy();
        return null;
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Answers the app with an engine's verdict: the engine's body and headers, as 400 (the
 * request's fault, so SDKs do not retry it) with X-Hub-Pool-Upstream-Status: 500, or as the
 * engine's 500 for a template that would not render. The row records the signature, never the text.
 */
function answerVerdict(
  deps: WalkDeps,
  req: WalkRequest,
  verdict: HeldVerdict<VerdictResponse>,
  basis: 'definitive' | 'confirmed' | 'last-candidate',
  confirms: string | null,
  attempts: Attempt[],
  totalMs: number,
): void {
  const status = verdictStatus(verdict.signature);
  const out = relayHeaders(verdict.response.headers, { servedBy: verdict.node, backend: verdict.response.backend, model: req.model, requestId: req.requestId });
  if (status !== 500) out['x-hub-pool-upstream-status'] = '500';
  out['content-length'] = verdict.response.bytes.length;
  req.res.writeHead(status, out);
  req.res.end(verdict.response.bytes);
  deps.logger.info({ requestId: req.requestId, node: verdict.node, signature: verdict.signature, basis }, 'answered with an engine\'s verdict on the request');
  deps.rows.settle(req.requestId, {
    node: verdict.node,
    backend: verdict.response.backend,
    attempt: verdict.index + 1,
    failedOverFrom: attempts.map((a) => a.node),
    attempts: [...attempts],
    status: 500,
    durationMs: totalMs,
    totalMs,
    outcome: 'failed',
    requestError: { signature: verdict.signature, basis, confirms },
    reason: `HTTP 500 (${verdict.signature})`,
  });
}

function engineKindOf(header: string | string[] | undefined): EngineKind | null {
  return typeof header === 'string' && (ENGINE_KINDS as readonly string[]).includes(header) ? (header as EngineKind) : null;
}

function failureOf(err: unknown, budgetMs: number): AttemptFailure {
  const code = (err as { code?: unknown }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return { kind: 'deadline', budgetMs };
  return { kind: 'transport', reason: describeTransportError(err) };
}

function recordFailover(deps: WalkDeps, req: WalkRequest, candidate: Candidate, attempts: Attempt[], outcome: { status: number | null; reason: string }): void {
  const attempt: Attempt = { node: candidate.node, backend: candidate.engine, status: outcome.status, reason: outcome.reason };
  attempts.push(attempt);
  deps.logger.warn({ requestId: req.requestId, node: candidate.node, backend: candidate.engine, status: outcome.status, reason: outcome.reason }, 'failed over from a candidate');
}

function settleCommitted(
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
    node: req.rowNode ?? candidate.node,
    backend: candidate.engine,
    attempt: index + 1,
    failedOverFrom: attempts.map((a) => a.node),
    attempts: [...attempts],
    status,
    durationMs,
    totalMs,
    outcome: refused || bodyFault !== null ? 'failed' : 'served',
    requestError,
    reason: bodyFault?.kind === 'output' ? `output fault (${bodyFault.fault})` : bodyFault?.kind === 'dropped' ? "the engine's connection dropped mid-body" : refused ? `HTTP ${status}` : null,
  });
}

function settleHangUp(deps: WalkDeps, req: WalkRequest, candidate: Candidate, index: number, attempts: Attempt[], status: number | null, totalMs: number): void {
  deps.logger.info({ requestId: req.requestId, node: candidate.node, afterMs: totalMs, answered: status !== null }, 'the caller closed its connection before the answer was complete');
  deps.rows.settle(req.requestId, {
    node: req.rowNode ?? candidate.node,
    backend: candidate.engine,
    attempt: index + 1,
    failedOverFrom: attempts.map((a) => a.node),
    attempts: [...attempts],
    status,
    totalMs,
    outcome: 'failed',
    clientClosed: true,
    reason: status === null ? 'the caller closed its connection before any answer' : 'the caller closed its connection mid-answer',
  });
}

function answerAllFailed(deps: WalkDeps, req: WalkRequest, attempts: Attempt[], totalMs: number): void {
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
