/**
 * A listing beside a second engine that the health snapshot still calls healthy but that has
 * stopped answering since (the snapshot can be a poll old). Once the other engine has answered,
 * the silent one gets LOCAL_LISTING_DEADLINE_MS from the start of the listing and is then left
 * out: the listing answers without it, its request is aborted rather than left open, and a
 * debug line names it so an operator can tell why its models were missing.
 *
 * Two Ollama engines (OLLAMA_URL takes a list): a simulated one that always answers, and a
 * plain server that answers /api/tags until the test tells it to hold every later one open.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

const ANSWERING = 'qwen3:8b';
const FALLEN_SILENT = 'gone-quiet:1b';

/** An Ollama that lists one model, until hold() makes it keep every later /api/tags open. */
class QuietingOllama {
  readonly held: IncomingMessage[] = [];
  readonly #server: Server;
  #holding = false;
  #onHeld: (() => void) | null = null;

  constructor() {
    this.#server = createServer((req, res) => {
      req.resume();
      if (req.url === '/api/tags' && this.#holding) {
        this.held.push(req);
        this.#onHeld?.();
        return;
      }
      const body = req.url === '/api/tags' ? { models: [{ name: FALLEN_SILENT, model: FALLEN_SILENT, size: 1, digest: 'd' }] } : { models: [] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  hold(): void {
    this.#holding = true;
  }

  /** Resolves once a held request's connection has been closed by the Hub. */
  closedByCaller(req: IncomingMessage): Promise<void> {
    return req.socket.destroyed ? Promise.resolve() : new Promise((resolve) => req.socket.once('close', () => resolve()));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

describe('a listing beside an engine that fell silent after its last probe', () => {
  let sim: SimEngine;
  let quieting: QuietingOllama;
  let hub: HubProcess;

  before(async () => {
    sim = await startSimEngine({ dialect: 'ollama', models: [ANSWERING], timeScale: 0.01 });
    quieting = new QuietingOllama();
    const quietUrl = await quieting.listen();
    hub = await startHubProcess({ env: { OLLAMA_URL: `${sim.url},${quietUrl}`, VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', HUB_LOG_LEVEL: 'debug' } });
  });
  after(async () => {
    await hub.stop();
    await Promise.all([sim.close(), quieting.close()]);
  });

  it('answers with the engine that answered, aborts the silent one and names it in a debug line', { timeout: scaled(60_000) }, async () => {
    await eventually(async () => {
      const { json } = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
      return json.localNode.backends.length === 2 && json.localNode.backends.every((b) => b.healthy);
    }, 'both engines to be probed healthy');

    quieting.hold();
    const res = await request(`${hub.pool}/api/tags`, { headersTimeout: scaled(30_000), bodyTimeout: scaled(30_000) });
    const body = (await res.body.json()) as { models: { name: string }[] };
    assert.equal(res.statusCode, 200, JSON.stringify(body));
    assert.deepEqual(
      body.models.map((m) => m.name),
      [ANSWERING],
      'the silent engine is left out',
    );

    assert.ok(quieting.held.length > 0, 'the listing asked the silent engine');
    await Promise.all(quieting.held.map((req) => quieting.closedByCaller(req)));

    const lines = hub
      .log()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; backend?: string; path?: string });
    const named = lines.filter((l) => l.msg === 'left a silent engine out of the listing');
    assert.deepEqual(
      named.map((l) => [l.level, l.backend, l.path]),
      [[20, 'ollama-2', '/api/tags']],
    );
  });
});
