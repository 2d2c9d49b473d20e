/**
 * Accounting under faults: whichever way a proxied request ends, every count it took is given
 * back once and its routing-log row settles once, with the fields that ending calls for. One
 * table, one ending per row, each on real sockets between two real Hubs on loopback.
 *
 * A is the entry Hub. Its Ollama is a simulated engine behind a front (test/helpers/engine-front.ts)
 * that can take over the next completion, which is how an engine resets its connection before or
 * after its headers. B is a paired peer with a simulated engine of its own, run in this process so
 * that it outlives B being stopped or killed. Each ending asks for a model of its own, so one
 * ending's strikes and withholds cannot steer the next, and its row is found by model even when
 * the app that left never saw a request id.
 *
 * After driving the fault, each ending waits (polling status and the routing log) until neither
 * Hub holds anything in flight and no row on either is pending; then it checks the row, the peer's
 * inbound row, that each Hub's settled-request counter (/metrics counts where rows settle) moved
 * by exactly one, and, with a probe turn for another model on each Hub, that no generation is
 * still counted on its engine (it would show as contention). A follow-up turn of the same session
 * then checks what placement reads for prefix affinity: the node the walk last tried is
 * remembered, with nothing in flight. Endings that stop, kill or unpair B run last: SIGSTOP, then
 * SIGKILL mid-stream (B restarted with its pairing), SIGKILL before headers, and B back without
 * its pairing (401).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request, type Dispatcher } from 'undici';
import { DATABASE_FILE_NAME } from '../../src/store/database.js';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RequestError, RoutingLogEntry } from '../../src/routing-log/entry.js';
import { heldCounters } from '../helpers/chaos.js';
import { startEngineFront, type EngineFront } from '../helpers/engine-front.js';
import { eventually } from '../helpers/hub-process.js';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool, type PoolHub } from '../helpers/pool-fixture.js';
import { scaled } from '../helpers/time-scale.js';

/** A's header deadline: short, so a peer that stops answering is given up on in seconds; the engines answer in milliseconds. */
const FIRST_BYTE_TIMEOUT_MS = 3_000;
/** An answer long enough to leave or break part-way: ~10 s of wall time at the simulator's 100x (the follow-up turns ask for a few tokens). */
const LONG = { decodeTps: 20, answerTokens: 20_000 };
/** A short answer, for the turns that only check accounting. */
const SHORT = { num_predict: 8 };
const OLLAMA_NO_USER_QUERY = '{"error":"no user query found in messages"}';

/** On A's engine and on B's: A's comes first while both are idle (A's one-request head start). */
const BOTH = {
  hangupHeaders: 'hangup-headers:1b',
  resetHeaders: 'reset-headers:1b',
  resetWhole: 'reset-whole:1b',
  engine503: 'engine-503:1b',
  verdict: 'verdict:1b',
  degenerate: 'degenerate:1b',
  peerStopped: 'peer-stopped:1b',
  peerStoppedFirst: 'peer-stopped-first:1b',
  engineSilent: 'engine-silent:1b',
  peerKilled: 'peer-killed:1b',
  peer401: 'peer-401:1b',
  stalledWhole: 'stalled-whole:1b',
  hangupSecond: 'hangup-second:1b',
  peer503: 'peer-503:1b',
};
/**
 * On both engines: asked of each Hub after an ending, so its row shows whether any generation the
 * ending placed is still counted on that Hub's engine (it would read as contention for this model).
 */
const PROBE = 'probe:1b';
/** On A's engine only. */
const A_ONLY = {
  hangupWhole: 'hangup-whole:1b',
  hangupPastBound: 'hangup-past-bound:1b',
  resetStream: 'reset-stream:1b',
  resetLast: 'reset-last:1b',
  stalledLast: 'stalled-last:1b',
  truncatedStream: 'truncated-stream:1b',
};
const A_LONG = { hangupStream: 'hangup-stream:1b' };
/** On B's engine only: always forwarded. */
const B_ONLY = {
  hangupHeaders: 'fwd-hangup-headers:1b',
  verdict: 'fwd-verdict:1b',
  degenerate: 'fwd-degenerate:1b',
  truncatedStream: 'fwd-truncated-stream:1b',
};
const B_LONG = { hangupStream: 'fwd-hangup-stream:1b', stoppedStream: 'fwd-stopped-stream:1b', killedStream: 'fwd-killed-stream:1b' };

type Node = 'local' | 'b';

/** What the entry Hub's row says once settled. */
interface RowFields {
  readonly outcome: 'served' | 'failed';
  readonly status: number | null;
  readonly node: Node | null;
  readonly attempt: number;
  readonly clientClosed: boolean;
  readonly requestError: RequestError | null;
  readonly failedOverFrom: readonly Node[];
  /** The status each passed-over candidate answered with (null: none), in order. */
  readonly attemptStatuses: readonly (number | null)[];
  /** The row's reason, or a pattern it matches. */
  readonly reason: string | RegExp | null;
}

/**
 * What B's inbound row says; null when the work never reached B's proxy (no row there). attempt
 * is 1 unless given (B serves a forward from its one engine); 'unsaid' leaves it unchecked.
 */
type InboundFields = (Pick<RowFields, 'outcome' | 'status' | 'clientClosed' | 'reason'> & { readonly attempt?: number | null | 'unsaid' }) | null;

interface World {
  readonly pool: Pool<'a' | 'b'>;
  readonly a: PoolHub;
  readonly b: PoolHub;
  readonly engineA: SimEngine;
  readonly engineB: SimEngine;
  readonly front: EngineFront;
}

interface Ending {
  readonly name: string;
  readonly model: string;
  /** Drives the fault and returns once the app's side of the request is over. */
  drive(w: World, send: Sender): Promise<void>;
  readonly row: RowFields;
  readonly inbound: InboundFields;
  /** What the session's next turn finds: the node the walk last tried remembered ('hit'), or forgotten after a walk that ran out ('miss'). */
  readonly followUp?: 'hit' | 'miss';
  /** Undoes what the ending did to the pool beyond the one request (a pin, a stopped peer). */
  cleanUp?(w: World): Promise<void>;
}

/** A chat through A on Ollama's native route, tagged with the ending's session; `abort` hangs up. */
type Sender = (opts: { stream: boolean; messages?: unknown[]; options?: Record<string, unknown> }) => {
  abort: () => void;
  answer: Promise<Dispatcher.ResponseData>;
};

const HELLO = [{ role: 'user', content: 'hello' }];

/** The first chunk of an Ollama chat stream, as an engine writes it. */
const FIRST_FRAME = `${JSON.stringify({ model: 'x', created_at: new Date(0).toISOString(), message: { role: 'assistant', content: 'Once' }, done: false })}\n`;

/** Waits until the engine front has written `chunk` after a 200's head, then hands the socket to `then`. */
function answerThen(contentType: string, chunk: string, then: (req: IncomingMessage) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.write(chunk, () => then(req));
  };
}

/** Reads an answer whole; resolves with whether its body failed part-way. */
async function bodyBroke(answer: Promise<Dispatcher.ResponseData>): Promise<boolean> {
  const res = await answer;
  return res.body.text().then(
    () => false,
    () => true,
  );
}

async function pinToB(w: World, model: string): Promise<void> {
  const res = await w.a.api('POST', `${POOL_API}/pins`, { scope: 'model', model, target: w.b.name });
  assert.equal(res.status, 200, JSON.stringify(res.json));
}

async function unpin(w: World, model: string): Promise<void> {
  await w.a.api('DELETE', `${POOL_API}/pins?scope=model&model=${encodeURIComponent(model)}`);
}

const ENDINGS: readonly Ending[] = [
  {
    name: 'the caller hangs up before any headers (local engine)',
    model: BOTH.hangupHeaders,
    async drive(w, send) {
      await w.engineA.setFault({ mode: 'hang', model: this.model });
      const req = send({ stream: false });
      await eventually(() => w.engineA.state().hanging === 1, "A's engine to hold the request");
      req.abort();
      await assert.rejects(req.answer);
      await eventually(() => w.engineA.state().hanging === 0, "A's engine to see the hang-up");
      assert.equal(w.engineB.state().perModel[this.model]?.requests ?? 0, 0, 'a hang-up is never failed over');
    },
    row: {
      outcome: 'failed',
      status: null,
      node: 'local',
      attempt: 1,
      clientClosed: true,
      requestError: null,
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'the caller closed its connection before any answer',
    },
    inbound: null,
  },
  {
    name: 'the caller hangs up before any headers (forwarded to a peer)',
    model: B_ONLY.hangupHeaders,
    async drive(w, send) {
      await w.engineB.setFault({ mode: 'hang', model: this.model });
      const req = send({ stream: false });
      await eventually(() => w.engineB.state().hanging === 1, "B's engine to hold the forward");
      req.abort();
      await assert.rejects(req.answer);
      await eventually(() => w.engineB.state().hanging === 0, "B's engine to see the forward let go");
    },
    row: {
      outcome: 'failed',
      status: null,
      node: 'b',
      attempt: 1,
      clientClosed: true,
      requestError: null,
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'the caller closed its connection before any answer',
    },
    inbound: { outcome: 'failed', status: null, clientClosed: true, reason: 'the caller closed its connection before any answer' },
  },
  {
    name: 'the caller hangs up mid-stream (local engine)',
    model: A_LONG.hangupStream,
    async drive(w, send) {
      const req = send({ stream: true });
      const res = await req.answer;
      assert.equal(res.statusCode, 200);
      for await (const _chunk of res.body) break;
      req.abort();
      await eventually(() => w.engineA.state().inFlight === 0, "A's engine to stop generating");
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'local',
      attempt: 1,
      clientClosed: true,
      requestError: null,
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'the caller closed its connection mid-answer',
    },
    inbound: null,
  },
  {
    name: 'the caller hangs up mid-stream (forwarded to a peer)',
    model: B_LONG.hangupStream,
    async drive(w, send) {
      const req = send({ stream: true });
      const res = await req.answer;
      assert.equal(res.statusCode, 200);
      for await (const _chunk of res.body) break;
      req.abort();
      await eventually(() => w.engineB.state().inFlight === 0, "B's engine to stop generating");
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'b',
      attempt: 1,
      clientClosed: true,
      requestError: null,
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'the caller closed its connection mid-answer',
    },
    inbound: { outcome: 'failed', status: 200, clientClosed: true, reason: 'the caller closed its connection mid-answer' },
  },
  {
    name: 'the caller hangs up while A reads a non-streamed answer whole',
    model: A_ONLY.hangupWhole,
    async drive(w, send) {
      let engineSideClosed!: () => void;
      const closed = new Promise<void>((resolve) => (engineSideClosed = resolve));
      let headWritten!: () => void;
      const written = new Promise<void>((resolve) => (headWritten = resolve));
      // The engine sends its head and part of the body, then holds the rest: A is reading it whole.
      w.front.takeNextCompletion(
        answerThen('application/json', '{"model":', (incoming) => {
          incoming.socket.once('close', engineSideClosed);
          headWritten();
        }),
      );
      const req = send({ stream: false });
      await written;
      // A answered a request sent after the engine's head was written: it has had that head.
      await w.a.api('GET', `${POOL_API}/routing-log`);
      req.abort();
      await assert.rejects(req.answer, 'the app got no headers');
      await closed;
    },
    row: {
      outcome: 'failed',
      status: null,
      node: 'local',
      attempt: 1,
      clientClosed: true,
      requestError: null,
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'the caller closed its connection before any answer',
    },
    inbound: null,
  },
  {
    name: 'the engine resets its connection before headers, and the peer serves',
    model: BOTH.resetHeaders,
    async drive(w, send) {
      w.front.takeNextCompletion((req) => req.socket.resetAndDestroy());
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], w.b.name);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'b',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['local'],
      attemptStatuses: [null],
      reason: null,
    },
    inbound: { outcome: 'served', status: 200, clientClosed: false, reason: null },
  },
  {
    name: 'the engine resets its connection mid-stream',
    model: A_ONLY.resetStream,
    async drive(w, send) {
      w.front.takeNextCompletion(answerThen('application/x-ndjson', FIRST_FRAME, (req) => req.socket.resetAndDestroy()));
      assert.equal(await bodyBroke(send({ stream: true }).answer), true, 'the app sees its stream break, not end');
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'local',
      attempt: 1,
      clientClosed: false,
      requestError: { signature: 'truncated-upstream', basis: 'node', confirms: null },
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'output fault (truncated-upstream)',
    },
    inbound: null,
  },
  {
    name: 'the engine resets its connection mid non-streamed body, and the peer serves',
    model: BOTH.resetWhole,
    async drive(w, send) {
      w.front.takeNextCompletion(answerThen('application/json', '{"model":', (req) => req.socket.resetAndDestroy()));
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], w.b.name);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'b',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['local'],
      attemptStatuses: [200],
      reason: null,
    },
    inbound: { outcome: 'served', status: 200, clientClosed: false, reason: null },
  },
  {
    name: 'the engine answers 503, and the peer serves',
    model: BOTH.engine503,
    async drive(w, send) {
      await w.engineA.setFault({ mode: 'error', status: 503, model: this.model, count: 1 });
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], w.b.name);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'b',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['local'],
      attemptStatuses: [503],
      reason: null,
    },
    inbound: { outcome: 'served', status: 200, clientClosed: false, reason: null },
  },
  {
    name: 'the engine gives a verdict on the request (no user turn): answered at once, nothing failed over',
    model: BOTH.verdict,
    async drive(w, send) {
      await w.engineA.setFault({ mode: 'error', status: 500, body: OLLAMA_NO_USER_QUERY, model: this.model });
      const res = await send({ stream: false, messages: [{ role: 'system', content: 'no user turn' }] }).answer;
      assert.equal(res.statusCode, 400, await res.body.text());
      assert.equal(w.engineB.state().perModel[this.model]?.requests ?? 0, 0, 'the peer was not asked');
    },
    row: {
      outcome: 'failed',
      status: 500,
      node: 'local',
      attempt: 1,
      clientClosed: false,
      requestError: { signature: 'no-user-query', basis: 'definitive', confirms: null },
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'HTTP 500 (no-user-query)',
    },
    inbound: null,
  },
  {
    name: "a peer's engine gives a verdict on the request (no user turn)",
    model: B_ONLY.verdict,
    async drive(w, send) {
      await w.engineB.setFault({ mode: 'error', status: 500, body: OLLAMA_NO_USER_QUERY, model: this.model });
      const res = await send({ stream: false, messages: [{ role: 'system', content: 'no user turn' }] }).answer;
      assert.equal(res.statusCode, 400, await res.body.text());
    },
    row: {
      outcome: 'failed',
      status: 500,
      node: 'b',
      attempt: 1,
      clientClosed: false,
      requestError: { signature: 'no-user-query', basis: 'definitive', confirms: null },
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'HTTP 500 (no-user-query)',
    },
    inbound: { outcome: 'failed', status: 500, clientClosed: false, reason: 'HTTP 500' },
  },
  {
    name: 'the output check finds a stream truncated (no done frame)',
    model: A_ONLY.truncatedStream,
    async drive(w, send) {
      await w.engineA.setFault({ mode: 'cut', model: this.model });
      const res = await send({ stream: true }).answer;
      assert.equal(res.statusCode, 200);
      await res.body.text().catch(() => undefined);
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'local',
      attempt: 1,
      clientClosed: false,
      requestError: { signature: 'truncated-upstream', basis: 'node', confirms: null },
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'output fault (truncated-upstream)',
    },
    inbound: null,
  },
  {
    name: 'the output check finds a non-streamed answer degenerate, and the peer serves',
    model: BOTH.degenerate,
    async drive(w, send) {
      await w.engineA.setFault({ mode: 'unused', model: this.model, count: 1 });
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], w.b.name);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'b',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['local'],
      attemptStatuses: [200],
      reason: null,
    },
    inbound: { outcome: 'served', status: 200, clientClosed: false, reason: null },
  },
  {
    name: "the output check finds a peer's non-streamed answer degenerate, from the last candidate",
    model: B_ONLY.degenerate,
    async drive(w, send) {
      await w.engineB.setFault({ mode: 'unused', model: this.model, count: 1 });
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200);
      await res.body.text();
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'b',
      attempt: 1,
      clientClosed: false,
      requestError: { signature: 'degenerate-output', basis: 'node', confirms: null },
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'output fault (degenerate-output)',
    },
    inbound: { outcome: 'failed', status: 200, clientClosed: false, reason: 'output fault (degenerate-output)' },
  },
  {
    name: 'the engine resets its connection before headers, and no candidate is left (502)',
    model: A_ONLY.resetLast,
    async drive(w, send) {
      w.front.takeNextCompletion((req) => req.socket.resetAndDestroy());
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 502, await res.body.text());
    },
    row: {
      outcome: 'failed',
      status: null,
      node: null,
      attempt: 1,
      clientClosed: false,
      requestError: null,
      failedOverFrom: [],
      attemptStatuses: [null],
      reason: /./,
    },
    inbound: null,
    // A walk that failed everywhere is forgotten: the session has nowhere to follow.
    followUp: 'miss',
  },
  {
    name: 'the engine stalls mid non-streamed body past the deadline, and the peer serves',
    model: BOTH.stalledWhole,
    async drive(w, send) {
      w.front.takeNextCompletion(answerThen('application/json', '{"model":', () => undefined));
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], w.b.name);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'b',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['local'],
      attemptStatuses: [200],
      reason: null,
    },
    inbound: { outcome: 'served', status: 200, clientClosed: false, reason: null },
  },
  {
    name: 'the engine stalls mid non-streamed body past the deadline, from the last candidate',
    model: A_ONLY.stalledLast,
    async drive(w, send) {
      w.front.takeNextCompletion(answerThen('application/json', '{"model":', () => undefined));
      assert.equal(await bodyBroke(send({ stream: false }).answer), true, 'the app sees the answer cut, not complete');
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'local',
      attempt: 1,
      clientClosed: false,
      requestError: { signature: 'truncated-upstream', basis: 'node', confirms: null },
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'output fault (truncated-upstream)',
    },
    inbound: null,
  },
  {
    name: 'the caller hangs up mid-body of an answer past the whole-read bound (relayed as it comes)',
    model: A_ONLY.hangupPastBound,
    async drive(w, send) {
      let engineSideClosed!: () => void;
      const closed = new Promise<void>((resolve) => (engineSideClosed = resolve));
      // 2.5 MiB of one answer, then nothing more: A commits past 2 MiB and relays what it has.
      const past = `{"model":"x","message":{"role":"assistant","content":"${'a'.repeat(2.5 * 1024 * 1024)}`;
      w.front.takeNextCompletion(answerThen('application/json', past, (incoming) => incoming.socket.once('close', engineSideClosed)));
      const req = send({ stream: false });
      const res = await req.answer;
      assert.equal(res.statusCode, 200);
      for await (const _chunk of res.body) break;
      req.abort();
      await closed;
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'local',
      attempt: 1,
      clientClosed: true,
      requestError: null,
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'the caller closed its connection mid-answer',
    },
    inbound: null,
  },
  {
    name: 'the caller hangs up while the walk waits on its second candidate',
    model: BOTH.hangupSecond,
    async drive(w, send) {
      await w.engineA.setFault({ mode: 'error', status: 503, model: this.model, count: 1 });
      await w.engineB.setFault({ mode: 'hang', model: this.model });
      const req = send({ stream: false });
      await eventually(() => w.engineB.state().hanging === 1, "B's engine to hold the forward");
      req.abort();
      await assert.rejects(req.answer);
      await eventually(() => w.engineB.state().hanging === 0, "B's engine to see the forward let go");
    },
    row: {
      outcome: 'failed',
      status: null,
      node: 'b',
      attempt: 2,
      clientClosed: true,
      requestError: null,
      failedOverFrom: ['local'],
      attemptStatuses: [503],
      reason: 'the caller closed its connection before any answer',
    },
    inbound: { outcome: 'failed', status: null, clientClosed: true, reason: 'the caller closed its connection before any answer' },
  },
  {
    name: "a peer's engine answers 503, and A's engine serves",
    model: BOTH.peer503,
    async drive(w, send) {
      await pinToB(w, this.model);
      await w.engineB.setFault({ mode: 'error', status: 503, model: this.model, count: 1 });
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], 'local');
    },
    async cleanUp(w) {
      await unpin(w, this.model);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'local',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['b'],
      // B ran out of engines of its own and answered its own 502, which names no engine.
      attemptStatuses: [502],
      reason: null,
    },
    inbound: { outcome: 'failed', status: null, clientClosed: false, reason: 'HTTP 503' },
  },
  {
    name: "the output check finds a peer's stream truncated",
    model: B_ONLY.truncatedStream,
    async drive(w, send) {
      await w.engineB.setFault({ mode: 'cut', model: this.model });
      const res = await send({ stream: true }).answer;
      assert.equal(res.statusCode, 200);
      await res.body.text().catch(() => undefined);
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'b',
      attempt: 1,
      clientClosed: false,
      requestError: { signature: 'truncated-upstream', basis: 'node', confirms: null },
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'output fault (truncated-upstream)',
    },
    inbound: { outcome: 'failed', status: 200, clientClosed: false, reason: 'output fault (truncated-upstream)' },
  },
  {
    name: "a peer stopped (SIGSTOP) before the forward reaches it, and A's engine serves",
    model: BOTH.peerStoppedFirst,
    async drive(w, send) {
      await pinToB(w, this.model);
      assert.ok(w.b.process.child.kill('SIGSTOP'), "B's process stopped");
      try {
        // B's kernel takes the connection and the request; B reads them, and A's close behind them, only once resumed.
        const res = await send({ stream: false }).answer;
        assert.equal(res.statusCode, 200, await res.body.text());
        assert.equal(res.headers['x-hub-pool-served-by'], 'local');
      } finally {
        w.b.process.child.kill('SIGCONT');
      }
    },
    async cleanUp(w) {
      w.b.process.child.kill('SIGCONT');
      await unpin(w, this.model);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'local',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['b'],
      attemptStatuses: [null],
      reason: null,
    },
    // B reads the request and A's close behind it in one go: its walk ends before its first attempt
    // or just after it starts, as its own events fall (a burst of twelve showed both). Either way it is a hang-up.
    inbound: { outcome: 'failed', status: null, clientClosed: true, reason: 'the caller closed its connection before any answer', attempt: 'unsaid' },
  },
  {
    name: "the engine sends no headers within A's deadline, and the peer serves",
    model: BOTH.engineSilent,
    async drive(w, send) {
      await w.engineA.setFault({ mode: 'hang', model: this.model });
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], w.b.name);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'b',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['local'],
      attemptStatuses: [null],
      reason: null,
    },
    inbound: { outcome: 'served', status: 200, clientClosed: false, reason: null },
  },
  {
    name: "a peer stopped (SIGSTOP) past A's header deadline, and A's engine serves",
    model: BOTH.peerStopped,
    async drive(w, send) {
      await pinToB(w, this.model);
      await w.engineB.setFault({ mode: 'hang', model: this.model });
      const req = send({ stream: false });
      await eventually(() => w.engineB.state().hanging === 1, "B's engine to hold the forward");
      assert.ok(w.b.process.child.kill('SIGSTOP'), "B's process stopped");
      try {
        const res = await req.answer;
        assert.equal(res.statusCode, 200, await res.body.text());
        assert.equal(res.headers['x-hub-pool-served-by'], 'local');
      } finally {
        // Resumed, B finds its sender gone and lets its engine go.
        w.b.process.child.kill('SIGCONT');
      }
      await eventually(() => w.engineB.state().hanging === 0, "B's engine to see the abandoned forward let go");
    },
    async cleanUp(w) {
      w.b.process.child.kill('SIGCONT');
      await unpin(w, this.model);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'local',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['b'],
      attemptStatuses: [null],
      reason: null,
    },
    inbound: { outcome: 'failed', status: null, clientClosed: true, reason: 'the caller closed its connection before any answer' },
  },
  {
    name: 'a peer stopped (SIGSTOP) mid-stream, and the caller gives up on it',
    model: B_LONG.stoppedStream,
    async drive(w, send) {
      const req = send({ stream: true });
      const res = await req.answer;
      assert.equal(res.statusCode, 200);
      for await (const _chunk of res.body) break;
      assert.ok(w.b.process.child.kill('SIGSTOP'), "B's process stopped");
      try {
        req.abort();
        // A lets go at once; B cannot hear of it until it runs again.
        await eventually(async () => heldCounters(await w.a.status()).length === 0, 'A to hold nothing while B is stopped');
      } finally {
        w.b.process.child.kill('SIGCONT');
      }
      await eventually(() => w.engineB.state().inFlight === 0, "B's engine to stop generating once B hears the caller left");
    },
    async cleanUp(w) {
      w.b.process.child.kill('SIGCONT');
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'b',
      attempt: 1,
      clientClosed: true,
      requestError: null,
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'the caller closed its connection mid-answer',
    },
    inbound: { outcome: 'failed', status: 200, clientClosed: true, reason: 'the caller closed its connection mid-answer' },
  },
  {
    name: 'a peer killed (SIGKILL) mid-stream',
    model: B_LONG.killedStream,
    async drive(w, send) {
      const res = await send({ stream: true }).answer;
      assert.equal(res.statusCode, 200);
      const chunks = res.body[Symbol.asyncIterator]();
      await chunks.next();
      await w.b.process.stop('SIGKILL');
      const broke = await (async () => {
        for (;;) if ((await chunks.next()).done) return false;
      })().catch(() => true);
      assert.equal(broke, true, 'the app sees its stream break, not end');
      await eventually(() => w.engineB.state().inFlight === 0, "the killed Hub's engine to stop generating");
    },
    async cleanUp(w) {
      // Back on its port with its pairing: A never polled it in between, so nothing else changed.
      await w.b.restart();
    },
    row: {
      outcome: 'failed',
      status: 200,
      node: 'b',
      attempt: 1,
      clientClosed: false,
      requestError: { signature: 'truncated-upstream', basis: 'node', confirms: null },
      failedOverFrom: [],
      attemptStatuses: [],
      reason: 'output fault (truncated-upstream)',
    },
    // B's routing log died with it.
    inbound: null,
  },
  {
    name: "a peer killed (SIGKILL) mid-forward, and A's engine serves",
    model: BOTH.peerKilled,
    async drive(w, send) {
      await pinToB(w, this.model);
      await w.engineB.setFault({ mode: 'hang', model: this.model });
      const req = send({ stream: false });
      await eventually(() => w.engineB.state().hanging === 1, "B's engine to hold the forward");
      await w.b.process.stop('SIGKILL');
      const res = await req.answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], 'local');
      // B's sockets went with its process: its engine holds nothing.
      await eventually(() => w.engineB.state().hanging === 0, "the killed Hub's engine to let the forward go");
    },
    async cleanUp(w) {
      await unpin(w, this.model);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'local',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['b'],
      attemptStatuses: [null],
      reason: null,
    },
    // B's routing log died with it.
    inbound: null,
  },
  {
    name: "a peer refuses the forward with 401 (it forgot the pairing), and A's engine serves",
    model: BOTH.peer401,
    async drive(w, send) {
      // B, killed by the ending before, comes back without its half of the pairing; A's picture of
      // B is from before the kill, and polls are minutes apart here, so B is still A's candidate.
      const db = new Database(join(w.b.dataDir, DATABASE_FILE_NAME));
      try {
        assert.ok(db.prepare('DELETE FROM hub_pool_peer').run().changes >= 1);
      } finally {
        db.close();
      }
      await w.b.restart();
      await pinToB(w, this.model);
      const res = await send({ stream: false }).answer;
      assert.equal(res.statusCode, 200, await res.body.text());
      assert.equal(res.headers['x-hub-pool-served-by'], 'local');
    },
    async cleanUp(w) {
      await unpin(w, this.model);
    },
    row: {
      outcome: 'served',
      status: 200,
      node: 'local',
      attempt: 2,
      clientClosed: false,
      requestError: null,
      failedOverFrom: ['b'],
      attemptStatuses: [401],
      reason: null,
    },
    inbound: null,
  },
];

/** How many requests a Hub has settled, all kinds summed: /metrics counts them where rows settle. */
async function settledCount(hub: PoolHub): Promise<number> {
  const res = await hub.api<string>('GET', '/metrics');
  assert.equal(res.status, 200);
  let sum = 0;
  for (const line of String(res.json).split('\n')) if (line.startsWith('cihub_requests_total{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

describe('accounting under faults: every count released and every row settled once', { timeout: START_TIMEOUT_MS + ENDINGS.length * TEST_TIMEOUT_MS }, () => {
  let w: World;

  before(
    async () => {
      const aModels = [PROBE, ...Object.values(BOTH), ...Object.values(A_ONLY), ...Object.values(A_LONG).map((name) => ({ name, ...LONG }))];
      const bModels = [PROBE, ...Object.values(BOTH), ...Object.values(B_ONLY), ...Object.values(B_LONG).map((name) => ({ name, ...LONG }))];
      const engineA = await startSimEngine({ dialect: 'ollama', models: aModels, timeScale: 0.01 });
      const front = await startEngineFront(engineA.url);
      const pool = await startPool<'a' | 'b'>({
        hubs: {
          a: {
            env: { OLLAMA_URL: front.url, HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS) },
            // Rows carry the affinity record, and the follow-up turn reads what placement counts.
            settings: { poolPrefixAffinityMaxInFlight: 2 },
          },
          b: { ollama: { models: bModels } },
        },
        pairs: [['a', 'b']],
        // Polls minutes apart: each Hub's picture of the other stays the one from pairing (idle),
        // so a peer's queue depth is this Hub's live count alone, and a restarted B is not re-polled.
        settings: { poolHealthPollSeconds: 300 },
      });
      w = { pool, a: pool.a, b: pool.b, engineA, engineB: pool.b.engines.ollama!, front };
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      w?.b.process.child.kill('SIGCONT');
      await w?.pool.stop();
      await w?.front.close();
      await w?.engineA.close();
    },
    { timeout: START_TIMEOUT_MS },
  );

  const nodeName = (n: Node): string => (n === 'local' ? 'local' : w.b.name);

  function heldNow(): Promise<string[]> {
    return Promise.all([w.a.status(), w.b.alive ? w.b.status() : null]).then(([a, b]) => [
      ...heldCounters(a).map((h) => `A ${h}`),
      ...(b === null ? [] : heldCounters(b).map((h) => `B ${h}`)),
    ]);
  }

  async function holdsNothing(): Promise<void> {
    let last: string[] = [];
    await eventually(async () => (last = await heldNow()).length === 0, 'both Hubs to hold nothing').catch((err: Error) => {
      throw new Error(`${err.message}; still held: ${last.join(', ')}`);
    });
  }

  /** Asks `hub` for the probe model: its row shows no generation still counted on that Hub's engine. */
  async function noGenerationCounted(hub: PoolHub): Promise<void> {
    const res = await request(`${hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: PROBE, stream: false, messages: HELLO, options: SHORT }),
    });
    assert.equal(res.statusCode, 200, await res.body.text());
    const row = await hub.settledRow(String(res.headers['x-hub-pool-request-id']));
    assert.equal(row.contention, null, `${hub.name} still counts a generation on its engine: ${JSON.stringify(row.contention)}`);
    assert.equal(row.node, 'local', `${hub.name} served the probe itself`);
  }

  /** Neither Hub holds anything and no row on either is pending; returns A's row for `model`. */
  async function quiet(model: string): Promise<RoutingLogEntry> {
    let last = '';
    return eventually(
      async () => {
        const held = await heldNow();
        const all = [...(await w.a.routingLog()), ...(w.b.alive ? await w.b.routingLog() : [])];
        const pending = all.filter((r) => r.outcome === 'pending').map((r) => `${r.direction} ${r.model}`);
        const rows = all.filter((r) => r.model === model && r.direction === 'outbound');
        last = `held: [${held.join(', ')}], pending: [${pending.join(', ')}], A's rows for ${model}: ${rows.length}`;
        return held.length === 0 && pending.length === 0 && rows.length > 0 ? rows : null;
      },
      'both Hubs to hold nothing and every row to settle',
      TEST_TIMEOUT_MS / 2,
    ).then(
      (rows) => {
        assert.equal(rows.length, 1, `exactly one row on A for ${model}: ${JSON.stringify(rows)}`);
        return rows[0]!;
      },
      (err: Error) => {
        throw new Error(`${err.message}; last: ${last}`);
      },
    );
  }

  for (const ending of ENDINGS) {
    it(ending.name, { timeout: TEST_TIMEOUT_MS }, async () => {
      const session = `fault-accounting/${ending.model}`;
      const send: Sender = ({ stream, messages = HELLO, options = {} }) => {
        const abort = new AbortController();
        const answer = request(`${w.a.pool}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-pool-session': session },
          body: JSON.stringify({ model: ending.model, stream, messages, options }),
          signal: abort.signal,
          headersTimeout: scaled(20_000),
          bodyTimeout: scaled(20_000),
        });
        // A rejection the ending does not await (a hang-up it caused) is not an unhandled one.
        answer.catch(() => undefined);
        return { abort: () => abort.abort(), answer };
      };
      const settledBefore = { a: await settledCount(w.a), b: w.b.alive ? await settledCount(w.b) : 0 };
      try {
        await ending.drive(w, send);
      } finally {
        await ending.cleanUp?.(w);
      }

      const row = await quiet(ending.model);
      const want = ending.row;
      assert.deepEqual(
        {
          outcome: row.outcome,
          status: row.status,
          node: row.node,
          attempt: row.attempt,
          clientClosed: row.clientClosed,
          requestError: row.requestError,
          failedOverFrom: row.failedOverFrom,
          attemptStatuses: row.attempts.map((x) => x.status),
        },
        {
          outcome: want.outcome,
          status: want.status,
          node: want.node === null ? null : nodeName(want.node),
          attempt: want.attempt,
          clientClosed: want.clientClosed,
          requestError: want.requestError,
          failedOverFrom: want.failedOverFrom.map(nodeName),
          attemptStatuses: want.attemptStatuses,
        },
        JSON.stringify(row),
      );
      assert.equal(row.durationMs === null, row.status === null, 'a time to headers exactly when the app was sent headers');
      assert.notEqual(row.totalMs, null);
      if (want.reason instanceof RegExp) assert.match(row.reason ?? '', want.reason);
      else assert.equal(row.reason, want.reason);
      // A new session: affinity judged the turn and had nothing remembered for it.
      assert.equal(row.affinity?.outcome, 'miss', JSON.stringify(row.affinity));
      assert.equal(row.affinity?.key, 'header');
      // No generation an earlier ending left on A's engine is counted against this one.
      assert.equal(row.contention, null, JSON.stringify(row.contention));

      // A killed B took its routing log with it; one restarted since has a fresh one.
      const inbound = ending.inbound === null && !w.b.alive ? [] : (await w.b.routingLog()).filter((r) => r.id === row.id);
      if (ending.inbound === null) assert.deepEqual(inbound, [], 'no row on B');
      else {
        assert.equal(inbound.length, 1, JSON.stringify(inbound));
        const r = inbound[0]!;
        assert.deepEqual(
          {
            direction: r.direction,
            node: r.node,
            attempt: r.attempt,
            outcome: r.outcome,
            status: r.status,
            clientClosed: r.clientClosed,
            requestError: r.requestError,
            reason: r.reason,
          },
          {
            direction: 'inbound',
            node: w.a.name,
            attempt: 1,
            ...ending.inbound,
            requestError: null,
            ...(ending.inbound.attempt === 'unsaid' ? { attempt: r.attempt } : {}),
          },
          JSON.stringify(r),
        );
      }
      // Settled once: each Hub counted one settled request for this ending (B only when its proxy took the work).
      assert.equal((await settledCount(w.a)) - settledBefore.a, 1, 'A settled exactly one request');
      if (ending.inbound !== null) assert.equal((await settledCount(w.b)) - settledBefore.b, 1, 'B settled exactly one request');
      for (const [name, engine] of [
        ['A', w.engineA],
        ['B', w.engineB],
      ] as const) {
        const { inFlight, queued, hanging } = engine.state();
        assert.deepEqual({ inFlight, queued, hanging }, { inFlight: 0, queued: 0, hanging: 0 }, `${name}'s engine holds nothing`);
      }
      await noGenerationCounted(w.a);
      // B, for the endings whose work its proxy took (the others leave it unpaired or never reached it).
      if (ending.inbound !== null) await noGenerationCounted(w.b);

      // The session's next turn: placement remembers the node the walk last placed it on, and sees nothing in flight there.
      await Promise.all([w.engineA.clearFaults(), w.engineB.clearFaults()]);
      const next = await send({ stream: false, options: SHORT }).answer;
      assert.equal(next.statusCode, 200, await next.body.text());
      const nextRow = await w.a.settledRow(String(next.headers['x-hub-pool-request-id']));
      const followUp = ending.followUp ?? 'hit';
      assert.equal(nextRow.affinity?.outcome, followUp, JSON.stringify(nextRow.affinity));
      assert.equal(nextRow.affinity?.inFlight, followUp === 'hit' ? 0 : null, JSON.stringify(nextRow.affinity));
      await holdsNothing();
    });
  }
});
