/**
 * The walk's hook points, over real sockets: a loopback server as the app's end, a closed port
 * and a simulated Ollama as the candidates.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { pino } from 'pino';
import { startSimEngine, type SimEngine } from '../sim/engine.js';
import { systemClock } from '../util/clock.js';
import type { Candidate } from '../placement/types.js';
import { InFlight } from './in-flight.js';
import { ROUTED_ROUTES } from './route-table.js';
import { walk } from './walk.js';
import { CallerLine } from './walk-caller.js';
import type { AttemptStart, WalkDeps, WalkObserver, WalkSettled } from './walk-types.js';
import { WithholdBook } from './withhold-book.js';
import type { AttemptFailure } from './failover-policy.js';

const MODEL = 'hook:7b';
const chat = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;

function candidate(id: string, url: string): Candidate {
  return { id: `local/${id}`, node: 'local', backendId: id, engine: 'ollama', url, queueDepth: 0, peerId: null, hardwareTier: null, pressure: 1 };
}

describe('the walk tells its observers', () => {
  let engine: SimEngine;
  let app: Server;
  let dispatcher: Agent;
  const inFlight = new InFlight();
  const events: string[] = [];
  let settled: WalkSettled | null = null;
  let deps: WalkDeps;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    dispatcher = new Agent();
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
    deps = {
      dispatcher,
      rows: { update: () => {}, settle: () => {} },
      inFlight,
      logger: pino({ level: 'silent' }),
      peerAuth: async () => 'no peers here',
      onPeerRefused: () => {},
      onEngineRefusal: () => {},
      outputFaults: new WithholdBook(systemClock),
      unservable: new WithholdBook(systemClock),
      onWithholdChange: () => {},
      observers: [throwing, recorder],
    };
    // A port that refuses: listen, note it, close.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const order = [candidate('dead-1', deadUrl), candidate('ollama-1', engine.url)];
    app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        void walk(deps, {
          requestId: 'r1',
          route: chat,
          model: MODEL,
          body,
          stream: true,
          order,
          budgetMs: 10_000,
          startedAt: performance.now(),
          accept: undefined,
          res,
          caller: new CallerLine(res),
          rowNode: null,
          windowOf: () => null,
        });
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise<void>((resolve) => app.close(() => resolve()));
    await dispatcher.close();
    await engine.close();
  });

  it("of each attempt with its count held, and of the settle with the served candidate, its times and the engine's timings; a throwing observer changes nothing", async () => {
    const { port } = app.address() as AddressInfo;
    const res = await request(`http://127.0.0.1:${port}/api/chat`, {
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
    const deps: WalkDeps = {
      dispatcher: new Agent(),
      rows: { update: () => {}, settle: (_id, patch) => void settledRows.push(patch as Record<string, unknown>) },
      inFlight: new InFlight(),
      logger: pino({ level: 'silent' }),
      peerAuth: async () => 'no peers here',
      onPeerRefused: () => {},
      onEngineRefusal: () => {},
      outputFaults: new WithholdBook(systemClock),
      unservable: new WithholdBook(systemClock),
      onWithholdChange: () => {},
      observers: [{ onSettled: (s) => void ends.push(s.end) }],
    };
    const app = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        void walk(deps, {
          requestId: 'r-none',
          route: chat,
          model: MODEL,
          body: Buffer.alloc(0),
          stream: false,
          order: [],
          budgetMs: 10_000,
          startedAt: performance.now(),
          accept: undefined,
          res,
          caller: new CallerLine(res),
          rowNode: null,
          windowOf: () => null,
          trace: {
            traceId: null,
            attemptStarted: () => ({}),
            attemptEnded: () => {},
            ended: (e: { status: number | null; outcome: string }) => void traced.push({ status: e.status, outcome: e.outcome }),
            setRequestId: () => {},
          } as unknown as NonNullable<Parameters<typeof walk>[1]['trace']>,
          answerNoCandidate: () => {
            res.writeHead(502, { 'content-type': 'application/json' });
            res.end('{"error":"worded by the proxy"}');
          },
        });
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = app.address() as AddressInfo;
      const res = await request(`http://127.0.0.1:${port}/api/chat`, { method: 'POST', body: '{}' });
      assert.equal(res.statusCode, 502);
      assert.equal(await res.body.text(), '{"error":"worded by the proxy"}');
      await waitFor(() => (ends.length > 0 ? ends : null));
      assert.deepEqual(ends, ['no-candidate']);
      assert.deepEqual(traced, [{ status: 502, outcome: 'failed' }]);
      assert.equal(settledRows.length, 1);
      assert.equal(settledRows[0]!.reason, 'no candidate holds the model');
      assert.equal(settledRows[0]!.attempt, null);
    } finally {
      await new Promise<void>((resolve) => app.close(() => resolve()));
      await deps.dispatcher.close();
    }
  });
});

async function waitFor<T>(read: () => T | null): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = read();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out waiting for the walk to settle');
}
