/**
 * POST /api/show asked of this node's own Ollamas, over loopback sockets: two simulated Ollamas
 * that both hold the model and describe it differently, each behind a front that says when the
 * lookup reached it and lets the first hold its answer. Asked in turn, an engine that held its
 * answer to the bound made every engine after it wait that long too; the engines are asked at
 * once, and the answer is still the first in the ask order that describes the model, whichever
 * answered first.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import pino from 'pino';
import { startEngineFront, type EngineFront } from '../../test/helpers/engine-front.js';
import { startSimEngine, type SimEngine } from '../sim/engine.js';
import type { BackendHealth } from '../engines/health-snapshot.js';
import { backendViewFixture } from '../engines/backend-view.fixture.js';
import type { UsablePeer } from '../placement/candidates.js';
import { LocalRoutes } from './local-routes.js';
import type { PoolAccess, PoolProxy } from './pool-proxy.js';

const MODEL = 'both:8b';

/** What the engines' fronts saw, in the order they saw it. */
type Seen = 'first asked' | 'first closed' | 'second asked';

/** The first engine's lookup, held at its front until the test lets it through. */
interface Held {
  /** Sends the lookup on to the engine and its answer back to the Hub. */
  release(): Promise<void>;
  /** Resolves when the Hub closed the lookup without an answer (gave up on it). */
  readonly closed: Promise<void>;
}

/** Asks the engine itself, as the front would have, and writes its answer to `res`. */
async function relayShow(engine: SimEngine, body: Buffer, res: ServerResponse): Promise<void> {
  const answer = await request(`${engine.url}/api/show`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type']), 'content-length': bytes.length });
  res.end(bytes);
}

describe("/api/show asked of this node's Ollamas", () => {
  const dispatcher = new Agent();
  let engines: SimEngine[];
  let fronts: EngineFront[];
  let app: Server;
  let seen: Seen[];

  before(async () => {
    // The two describe the model differently (its trained context), so the app's answer names its engine.
    engines = await Promise.all([8_192, 32_768].map((contextLength) => startSimEngine({ dialect: 'ollama', models: [{ name: MODEL, contextLength }] })));
    fronts = await Promise.all(engines.map((e) => startEngineFront(e.url)));
    const views = [
      backendViewFixture([MODEL], { backendId: 'ollama', url: fronts[0]!.url }),
      backendViewFixture([MODEL], { backendId: 'ollama-2', url: fronts[1]!.url }),
    ];
    const routes = new LocalRoutes({
      pool: { usablePeers: () => [] } as unknown as PoolAccess,
      health: { snapshot: async () => views } as unknown as BackendHealth,
      dispatcher,
      proxy: { showOrder: (_model: string, ranked: readonly UsablePeer[]) => [...ranked] } as unknown as PoolProxy,
      logger: pino({ level: 'silent' }),
      unservable: () => false,
    });
    app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void routes.ollamaShow(Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    app.closeAllConnections();
    await new Promise<void>((resolve) => app.close(() => resolve()));
    await Promise.all([...fronts.map((f) => f.close()), ...engines.map((e) => e.close())]);
    await dispatcher.close();
  });

  async function description(engine: SimEngine): Promise<unknown> {
    return (await request(`${engine.url}/api/show`, { method: 'POST', body: JSON.stringify({ model: MODEL }) })).body.json();
  }

  async function show(): Promise<{ status: number; body: unknown }> {
    const { port } = app.address() as AddressInfo;
    const res = await request(`http://127.0.0.1:${port}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL }),
    });
    return { status: res.statusCode, body: await res.body.json() };
  }

  /** The next lookup: the first engine's front holds it, the second's says so and lets it through at once. */
  function nextLookup(): { firstHeld: Promise<Held>; secondAsked: Promise<void> } {
    seen = [];
    const [first, second] = engines as [SimEngine, SimEngine];
    const firstHeld = new Promise<Held>((held) =>
      fronts[0]!.takeNextCompletion((_req, res, body) => {
        seen.push('first asked');
        let answered = false;
        const closed = new Promise<void>((resolve) =>
          res.once('close', () => {
            if (answered) return;
            seen.push('first closed');
            resolve();
          }),
        );
        held({
          release: () => {
            answered = true;
            return relayShow(first, body, res);
          },
          closed,
        });
      }),
    );
    const secondAsked = new Promise<void>((asked) =>
      fronts[1]!.takeNextCompletion((_req, res, body) => {
        seen.push('second asked');
        asked();
        void relayShow(second, body, res);
      }),
    );
    return { firstHeld, secondAsked };
  }

  it("asks the second engine while the first still holds its answer, and relays the first's: the ask order decides, not which answered first", async () => {
    const { firstHeld, secondAsked } = nextLookup();
    const answer = show();
    const held = await firstHeld;
    // Asked in turn, the second would be asked only once the Hub gave the first up at its bound.
    await Promise.race([secondAsked, held.closed]);
    assert.deepEqual(seen, ['first asked', 'second asked'], 'the second was asked before the first answered or was given up');
    await held.release();
    const got = await answer;
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, await description(engines[0]!), "the first engine's description, though the second's came first");
  });

  it("relays the second engine's description when the first holds its answer past the bound, and closes the first", async () => {
    const { firstHeld, secondAsked } = nextLookup();
    const got = await show();
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, await description(engines[1]!));
    await Promise.all([secondAsked, (await firstHeld).closed]);
    assert.deepEqual(seen, ['first asked', 'second asked', 'first closed']);
  });
});
