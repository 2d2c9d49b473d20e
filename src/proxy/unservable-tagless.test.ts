/**
 * The unservable record reads a tagless Ollama name as the `:latest` it means (the issues'
 * decision; model-name.ts). Keyed by the name as asked, two failures of `qwen3` withheld only
 * `qwen3`: the engine still stood for `qwen3:latest`, the name it lists, so it was still placed
 * for that name and never reached unservableModels, and peers kept forwarding `qwen3` here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { pino } from 'pino';
import { until } from '../engines/fake-engine.testkit.js';
import type { BackendView } from '../engines/types.js';
import { localCandidates } from '../placement/candidates.js';
import { startSimEngine, type SimEngine } from '../sim/engine.js';
import { systemClock } from '../util/clock.js';
import { InFlight } from './in-flight.js';
import { ROUTED_ROUTES } from './route-table.js';
import { walk } from './walk.js';
import { CallerLine } from './walk-caller.js';
import type { WalkDeps } from './walk-types.js';
import { localUnservable, WithholdBook } from './withhold-book.js';

const LISTED = 'qwen3:latest';
const chatRoute = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;

describe('a model withheld under its tagless Ollama name', () => {
  let engine: SimEngine;
  let app: Server;
  let dispatcher: Agent;
  const changes: string[] = [];
  const unservable = new WithholdBook(systemClock);
  const unservableHere = localUnservable(unservable);

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: LISTED }], timeScale: 0.01 });
    dispatcher = new Agent();
    const deps: WalkDeps = {
      dispatcher,
      rows: { update: () => {}, settle: () => {} },
      inFlight: new InFlight(),
      logger: pino({ level: 'silent' }),
      peerAuth: async () => 'no peers here',
      onPeerRefused: () => {},
      onEngineRefusal: () => {},
      outputFaults: new WithholdBook(systemClock),
      unservable,
      onWithholdChange: (backendId, model, withheld) => changes.push(`${backendId} ${model} ${withheld ? 'withheld' : 'released'}`),
      observers: [],
    };
    const order = [
      {
        id: 'local/ollama-1',
        node: 'local',
        backendId: 'ollama-1',
        engine: 'ollama' as const,
        url: engine.url,
        queueDepth: 0,
        peerId: null,
        hardwareTier: null,
        pressure: 1,
      },
    ];
    app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        void walk(deps, {
          requestId: 'r',
          route: chatRoute,
          model: (JSON.parse(body.toString()) as { model: string }).model,
          body,
          stream: false,
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

  async function chatAs(model: string): Promise<number> {
    const res = await request(`http://127.0.0.1:${(app.address() as AddressInfo).port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: false }),
    });
    await res.body.text();
    return res.statusCode;
  }

  const view: BackendView = {
    backendId: 'ollama-1',
    kind: 'ollama',
    url: 'http://127.0.0.1',
    running: true,
    healthy: true,
    models: [{ name: LISTED, parameterSize: null, capabilities: null, sizeBytes: null }],
    error: null,
    probedMsAgo: 0,
  };

  it('withholds the engine for both names once the two names failed once each, and is cleared by a success under either', async () => {
    await engine.setFault({ mode: 'error', status: 500 });
    assert.notEqual(await chatAs('qwen3'), 200);
    assert.notEqual(await chatAs(LISTED), 200);
    assert.deepEqual(changes, [`ollama-1 ${LISTED} withheld`], 'the two strikes added up to one withhold');
    assert.equal(unservableHere(view, LISTED), true, 'the name the engine lists, which unservableModels is built from');
    assert.equal(unservableHere(view, 'qwen3'), true);
    assert.deepEqual(
      localCandidates([view], 'qwen3', 'ollama', () => 0, unservableHere),
      [],
    );
    assert.deepEqual(
      localCandidates([view], LISTED, 'ollama', () => 0, unservableHere),
      [],
    );

    await engine.clearFaults();
    assert.equal(await chatAs('qwen3'), 200);
    await until(() => !unservableHere(view, LISTED), 5_000, 'the success to end the withhold');
    assert.deepEqual(changes.slice(1), ['ollama-1 qwen3 released']);
  });
});
