/**
 * Issue 10 audit: a completed embeddings request is a clean answer like any other, so it ends a
 * withheld model's record (until this, only judged chat and completion answers cleared it, and a
 * withheld embedding model stayed behind every other candidate however well it served).
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
import { InFlight } from './in-flight.js';
import { ROUTED_ROUTES } from './route-table.js';
import { walk } from './walk.js';
import { CallerLine } from './walk-caller.js';
import type { WalkDeps } from './walk-types.js';
import { engineModelKey, WithholdBook } from './withhold-book.js';
import { until } from '../engines/fake-engine.testkit.js';

const EMBED = 'nomic-embed-text:latest';
const embed = ROUTED_ROUTES.find((r) => r.path === '/api/embed')!;

describe('an embeddings answer ends a withhold', () => {
  let engine: SimEngine;
  let app: Server;
  let dispatcher: Agent;
  const changes: string[] = [];
  const unservable = new WithholdBook(systemClock);
  const key = engineModelKey('local', 'ollama', EMBED);

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: EMBED, capabilities: ['embedding'] }], timeScale: 0.01 });
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
        id: 'local/ollama',
        node: 'local',
        backendId: 'ollama',
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
        void walk(deps, {
          requestId: 'e1',
          route: embed,
          model: EMBED,
          body: Buffer.concat(chunks),
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

  it('clears the withheld record and says so', async () => {
    unservable.strike(key, 'HTTP 500');
    unservable.strike(key, 'HTTP 500');
    assert.equal(unservable.isWithheld(key), true, 'two failures withhold it');
    const port = (app.address() as AddressInfo).port;
    const res = await request(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: EMBED, input: 'hello' }),
    });
    assert.equal(res.statusCode, 200);
    await res.body.text();
    // The record is settled as the relayed body ends, which can be just after the app read it.
    await until(() => !unservable.isWithheld(key), 5_000, 'the withhold to end');
    assert.deepEqual(changes, [`ollama ${EMBED} released`]);
  });
});
