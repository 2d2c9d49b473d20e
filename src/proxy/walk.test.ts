/**
 * The walk's hook points, over real sockets: a loopback server as the app's end, a closed port
 * and a simulated Ollama as the candidates.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../sim/engine.js';
import type { Candidate } from '../placement/types.js';
import { InFlight } from './in-flight.js';
import { ROUTED_ROUTES } from './route-table.js';
import { endOnlyTrace, localCandidate as candidate, rawEngine, startWalkApp, walkDeps, type WalkApp } from './walk.fixture.js';
import type { AttemptStart, WalkDeps, WalkObserver, WalkSettled } from './walk-types.js';
import type { AttemptFailure } from './failover-policy.js';
import { until } from '../engines/fake-engine.testkit.js';
import { refusedUrl } from '../../test/helpers/refused-port.js';

const MODEL = 'hook:7b';
const chat = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;

describe('the walk tells its observers', () => {
  let engine: SimEngine;
  let app: WalkApp;
  const inFlight = new InFlight();
  const events: string[] = [];
  let settled: WalkSettled | null = null;
  let deps: WalkDeps;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    const recorder: WalkObserver = {
      onAttempt: (a: AttemptStart) => events.push(`attempt ${a.candidate.backendId} (counted ${inFlight.count(a.candidate.backendId!)})`),
      onAttemptEnd: (a: AttemptStart, f: AttemptFailure | null) => events.push(`end ${a.candidate.backendId} ${f?.kind ?? 'answered'}`),
      onSettled: (s) => {
        settled = s;
      },
    };
    const throwing: WalkObserver = {
      onAttempt: () => {
        throw new Error('a broken observer');
      },
      onSettled: () => {
        throw new Error('a broken observer');
      },
    };
    deps = walkDeps({ inFlight, observers: [throwing, recorder] });
    const order = [candidate('dead-1', await refusedUrl()), candidate('ollama-1', engine.url)];
    app = await startWalkApp(deps, () => ({ route: chat, model: MODEL, stream: true, order }));
  });
  after(async () => {
    await app.close();
    await deps.dispatcher.close();
    await engine.close();
  });

  it("of each attempt with its count held, and of the settle with the served candidate, its times and the engine's timings; a throwing observer changes nothing", async () => {
    const res = await request(`${app.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.statusCode, 200);
    await res.body.text();
    const s = await waitFor(() => settled);
    assert.deepEqual(events, ['attempt dead-1 (counted 1)', 'end dead-1 transport', 'attempt ollama-1 (counted 1)', 'end ollama-1 answered']);
    assert.equal(s.end, 'committed');
    assert.equal(s.served?.backendId, 'ollama-1');
    assert.equal(s.attempt, 2);
    assert.equal(s.status, 200);
    assert.deepEqual(
      s.failures.map((f) => f.failure.kind),
      ['transport'],
    );
    assert.ok(s.headersMs !== null && s.headersMs <= s.totalMs);
    const timings = s.engineTimings();
    assert.ok(timings !== null && timings.promptTokens !== null && timings.promptMs !== null && timings.completionTokens !== null, JSON.stringify(timings));
    assert.equal(inFlight.total(), 0);
  });
});

describe('a walk with no candidate', () => {
  it('settles once through the same settle point: the row, the trace status 502, the observers, and the 502 the proxy words', async () => {
    const settledRows: Record<string, unknown>[] = [];
    const ends: string[] = [];
    const traced: { status: number | null; outcome: string }[] = [];
    const deps = walkDeps({
      rows: { update: () => {}, settle: (_id, patch) => void settledRows.push(patch as Record<string, unknown>) },
      observers: [{ onSettled: (s) => void ends.push(s.end) }],
    });
    const app = await startWalkApp(deps, (_body, _req, res) => ({
      route: chat,
      model: MODEL,
      order: [],
      trace: endOnlyTrace((e) => void traced.push({ status: e.status, outcome: e.outcome })),
      answerNoCandidate: () => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"error":"worded by the proxy"}');
      },
    }));
    try {
      const res = await request(`${app.url}/api/chat`, { method: 'POST', body: '{}' });
      assert.equal(res.statusCode, 502);
      assert.equal(await res.body.text(), '{"error":"worded by the proxy"}');
      await waitFor(() => (ends.length > 0 ? ends : null));
      assert.deepEqual(ends, ['no-candidate']);
      assert.deepEqual(traced, [{ status: 502, outcome: 'failed' }]);
      assert.equal(settledRows.length, 1);
      assert.equal(settledRows[0]!.reason, 'no candidate holds the model');
      assert.equal(settledRows[0]!.attempt, null);
    } finally {
      await app.close();
      await deps.dispatcher.close();
    }
  });
});

describe('a walk whose settle throws', () => {
  it('still tells its observers it settled, so what they hold for the request is released', async () => {
    const ends: string[] = [];
    const deps = walkDeps({
      rows: {
        update: () => {},
        settle: () => {
          throw new Error('the routing log refused the row');
        },
      },
      observers: [{ onSettled: (s) => void ends.push(s.end) }],
    });
    const app = await startWalkApp(deps, () => ({ route: chat, model: MODEL, order: [] }));
    try {
      await request(`${app.url}/api/chat`, { method: 'POST', body: '{}' }).then(
        (res) => res.body.dump(),
        () => {},
      );
      await waitFor(() => (app.thrown.length > 0 ? app.thrown : null));
      assert.match(String(app.thrown[0]), /the routing log refused the row/);
      assert.deepEqual(ends, ['no-candidate']);
    } finally {
      await app.close();
      await deps.dispatcher.close();
    }
  });
});

describe('a walk that throws before it answered', () => {
  it("leaves the row's id on the response, for the 500 the route answers with", async () => {
    let answered: ServerResponse | null = null;
    const deps = walkDeps({ rows: { update: () => {}, settle: () => {} } });
    const app = await startWalkApp(deps, (_body, _req, res) => {
      answered = res;
      return {
        route: chat,
        model: MODEL,
        order: [],
        affinity: 'miss',
        answerNoCandidate: () => {
          throw new Error('the 502 could not be worded');
        },
      };
    });
    try {
      await request(`${app.url}/api/chat`, { method: 'POST', body: '{}' }).then(
        (res) => res.body.dump(),
        () => {},
      );
      await waitFor(() => (app.thrown.length > 0 ? app.thrown : null));
      assert.match(String(app.thrown[0]), /could not be worded/);
      const res = answered as ServerResponse | null;
      assert.equal(res?.getHeader('x-hub-pool-request-id'), 'r');
      assert.equal(res?.getHeader('x-hub-pool-affinity'), 'miss');
    } finally {
      await app.close();
      await deps.dispatcher.close();
    }
  });
});

interface WalkRun {
  readonly status: number;
  /** The body the app read, or null when its connection broke before the body ended. */
  readonly body: string | null;
  readonly settled: WalkSettled;
  readonly row: Record<string, unknown>;
  readonly tracedStatus: number | null;
}

/** One request through a walk over `order`, as an app on a loopback socket sees it, with what the walk recorded. */
async function runWalk(order: readonly Candidate[], opts: { stream: boolean; budgetMs: number; rowNode?: string }): Promise<WalkRun> {
  let settle!: (s: WalkSettled) => void;
  const settledP = new Promise<WalkSettled>((resolve) => (settle = resolve));
  const rows: Record<string, unknown>[] = [];
  let tracedStatus: number | null = null;
  const deps = walkDeps({
    rows: { update: () => {}, settle: (_id, patch) => void rows.push(patch as Record<string, unknown>) },
    observers: [{ onSettled: (s) => settle(s) }],
  });
  const app = await startWalkApp(deps, () => ({
    route: chat,
    model: MODEL,
    stream: opts.stream,
    order,
    budgetMs: opts.budgetMs,
    rowNode: opts.rowNode ?? null,
    trace: endOnlyTrace((e) => void (tracedStatus = e.status)),
  }));
  try {
    const body = JSON.stringify({ model: MODEL, stream: opts.stream, messages: [{ role: 'user', content: 'hi' }] });
    const res = await request(`${app.url}/api/chat`, { method: 'POST', body });
    const text = await res.body.text().catch(() => null);
    const settled = await settledP;
    return { status: res.statusCode, body: text, settled, row: rows[0]!, tracedStatus };
  } finally {
    await app.close();
    await deps.dispatcher.close();
  }
}

describe('what a walk records as it ends', () => {
  const engines: { close: () => Promise<void> }[] = [];
  after(async () => {
    await Promise.all(engines.map((e) => e.close()));
  });
  const engine = async (answer: (req: IncomingMessage, res: ServerResponse) => void) => {
    const e = await rawEngine(answer);
    engines.push(e);
    return e;
  };
  const OLLAMA_DONE = JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'hello' }, done: true });

  it("times the node that served from the start of its own attempt, not from the request's arrival", async () => {
    const BUDGET_MS = 200;
    const hangs = await engine(() => {}); // never answers: the attempt runs out of its header budget
    const answers = await engine((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(OLLAMA_DONE));
    const run = await runWalk([candidate('hangs', hangs.url), candidate('answers', answers.url)], { stream: true, budgetMs: BUDGET_MS });
    assert.equal(run.status, 200);
    assert.deepEqual(
      run.settled.failures.map((f) => f.failure.kind),
      ['deadline'],
    );
    const { headersMs, attemptHeadersMs } = run.settled;
    assert.ok(headersMs !== null && attemptHeadersMs !== null);
    assert.ok(
      headersMs - attemptHeadersMs >= BUDGET_MS,
      `the served attempt began after the first one's ${BUDGET_MS} ms: ${headersMs} from arrival, ${attemptHeadersMs} its own`,
    );
  });

  it('relays a whole answer cut off on the last candidate as the engine gave it, and settles it failed on that node as an output fault', async () => {
    const cut = await engine((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 400 });
      res.write('{"model":"hook:7b","message":{"role":"assistant","content":"hel');
      setImmediate(() => res.socket?.destroy());
    });
    const run = await runWalk([candidate('cut', cut.url)], { stream: false, budgetMs: 10_000 });
    assert.equal(run.status, 200, 'the app got the engine status, not a 502');
    assert.equal(run.body, null, "the app's read breaks where the engine's did");
    assert.equal(run.settled.end, 'committed');
    assert.equal(run.row.node, 'local');
    assert.equal(run.row.outcome, 'failed');
    assert.deepEqual(run.row.requestError, { signature: 'truncated-upstream', basis: 'node', confirms: null });
  });

  it('still fails over from a whole answer cut off on a candidate that is not the last', async () => {
    const cut = await engine((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 400 });
      res.write('{"model":"hook:7b"');
      setImmediate(() => res.socket?.destroy());
    });
    const answers = await engine((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(OLLAMA_DONE));
    const run = await runWalk([candidate('cut', cut.url), candidate('answers', answers.url)], { stream: false, budgetMs: 10_000 });
    assert.equal(run.status, 200);
    assert.equal(run.body, OLLAMA_DONE);
    assert.equal(run.row.outcome, 'served');
    assert.deepEqual(
      run.settled.failures.map((f) => f.failure.kind),
      ['body-dropped'],
    );
  });

  it("traces the 400 the app got for an engine's verdict, while the row keeps the engine's 500", async () => {
    const verdict = await engine((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"no user query found in messages"}'));
    const run = await runWalk([candidate('verdict', verdict.url)], { stream: false, budgetMs: 10_000 });
    assert.equal(run.status, 400);
    assert.equal(run.row.status, 500);
    assert.equal(run.tracedStatus, 400);
  });

  it("serving a peer's forward, passes a definitive verdict back at once instead of asking its next engine", async () => {
    const verdict = await engine((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"no user query found in messages"}'));
    const busy = await engine((_req, res) => res.writeHead(503).end());
    const run = await runWalk([candidate('verdict', verdict.url), candidate('busy', busy.url)], { stream: false, budgetMs: 10_000, rowNode: 'core-1' });
    assert.equal(run.status, 500, "the engine's own 500 goes back for the sender to judge");
    assert.match(run.body ?? '', /no user query/);
    assert.equal(busy.asked(), 0, 'the next engine here was never asked');
  });
});

async function waitFor<T>(read: () => T | null): Promise<T> {
  let v: T | null = null;
  await until(() => (v = read()) !== null, 5000, 'the walk to settle');
  return v!;
}
