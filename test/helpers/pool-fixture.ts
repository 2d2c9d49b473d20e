/**
 * A pool of real Hub processes on loopback for the pooled-routing tests: each Hub fronts its own
 * simulated engines, knows the others by MagicDNS name (hub-<letter>.tail0.ts.net) through
 * HUB_POOL_PEER_ORIGINS, and is paired with the others through the operator API, the way an
 * operator pairs two Hubs: the receiver mints a PIN, the sender asks with it, the receiver
 * approves. startPool returns once every pairing is connected on both sides and each side holds
 * the other's first capabilities snapshot, so a test can route straight away.
 *
 * Also the small vocabulary the tests speak in: send a chat, hold requests open on a Hub,
 * find a routing-log row, read a peer as another Hub sees it.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { SimEngineOptions, SimModelOptions } from '../../src/sim/types.js';
import { isReadableModelName } from '../../src/engines/model-name.js';
import type { PeerView } from '../../src/peers/peer-view.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import { eventually, freePort, isPortTaken, startHubProcess, type HubProcess } from './hub-process.js';
import { scaled } from './time-scale.js';

export const TAILNET = 'tail0.ts.net';
export const POOL_API = '/api/inference/pool';
/** The simulated engines run 100x faster than the timings they report, unless a spec says otherwise. */
const DEFAULT_TIME_SCALE = 0.01;
/** A pairing's first health poll lands within about a second of approval; this only bounds a broken one. */
const PAIRING_SETTLE_MS = 30_000;
/** Bounds for the tests, so a wedged Hub fails a test instead of hanging the run (stretched by HUB_TEST_TIME_SCALE). */
export const START_TIMEOUT_MS = scaled(90_000);
export const TEST_TIMEOUT_MS = scaled(60_000);
/** For the tests that wait out three health polls and a rejoin. */
export const LONG_TEST_TIMEOUT_MS = scaled(180_000);
/** How long stop() gives a Hub to drain before it is killed. */
const STOP_GRACE_MS = scaled(5_000);

export type EngineSpec = Omit<SimEngineOptions, 'dialect' | 'port'>;

export interface HubSpec {
  readonly ollama?: EngineSpec;
  readonly vllm?: EngineSpec;
  /** Extra environment for the Hub process. */
  readonly env?: Record<string, string>;
  /** Settings PATCHed before any pairing (over the pool-wide ones). */
  readonly settings?: Record<string, unknown>;
}

export interface PoolSpec<L extends string> {
  readonly hubs: Record<L, HubSpec>;
  /** [sender, receiver]: the sender asks, the receiver approves. Run in this order, so peer rows are created in it. */
  readonly pairs: readonly (readonly [L, L])[];
  /** Settings PATCHed on every Hub before pairing (poolHealthPollSeconds above all). */
  readonly settings?: Record<string, unknown>;
}

export const nodeName = (letter: string): string => `hub-${letter}.${TAILNET}`;

/** One Hub of the pool: its process (replaced on restart), its port, data dir and engines. */
export class PoolHub {
  readonly letter: string;
  readonly name: string;
  readonly port: number;
  readonly dataDir: string;
  readonly engines: { ollama?: SimEngine; vllm?: SimEngine };
  readonly #baseEnv: Record<string, string>;
  #process: HubProcess;

  constructor(init: { letter: string; port: number; engines: PoolHub['engines']; baseEnv: Record<string, string>; process: HubProcess }) {
    this.letter = init.letter;
    this.name = nodeName(init.letter);
    this.port = init.port;
    this.engines = init.engines;
    this.#baseEnv = init.baseEnv;
    this.#process = init.process;
    this.dataDir = init.process.dataDir;
  }

  get process(): HubProcess {
    return this.#process;
  }
  get url(): string {
    return this.#process.url;
  }
  /** The proxy base apps use: `${url}/api/inference/pool`. */
  get pool(): string {
    return this.#process.pool;
  }
  get alive(): boolean {
    return this.#process.child.exitCode === null && this.#process.child.signalCode === null;
  }
  log(): string {
    return this.#process.log();
  }
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T; headers: Record<string, unknown> }> {
    return this.#process.api<T>(method, path, body);
  }

  /** Stops the process (drains, then kills after a short grace). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.alive) return;
    const stopped = this.#process.stop(signal);
    const inTime = await Promise.race([stopped.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
    if (!inTime) await this.#process.stop('SIGKILL');
  }

  /**
   * Starts the Hub again on the same port and data dir; `env` adds to (or overrides) what it first
   * started with. Stopped with SIGTERM it tells its peers it is leaving; SIGKILL vanishes silently.
   */
  async restart(env: Record<string, string> = {}, signal?: NodeJS.Signals): Promise<void> {
    await this.stop(signal);
    this.#process = await startHubProcess({ port: this.port, dataDir: this.dataDir, env: { ...this.#baseEnv, ...env } });
  }

  /** PATCH /settings, asserting it was accepted. */
  async patchSettings(patch: Record<string, unknown>): Promise<void> {
    const res = await this.api('PATCH', `${POOL_API}/settings`, patch);
    assert.equal(res.status, 200, `PATCH settings on ${this.name}: ${JSON.stringify(res.json)}`);
  }

  async status(): Promise<PoolStatus> {
    const res = await this.api<PoolStatus>('GET', `${POOL_API}/status`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json;
  }

  /** This Hub's row for another Hub, as its operator sees it. */
  async peer(other: PoolHub | string): Promise<PeerView | null> {
    const name = typeof other === 'string' ? other : other.name;
    const res = await this.api<{ peers: PeerView[] }>('GET', `${POOL_API}/peers`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json.peers.find((p) => p.nodeFqdn === name) ?? null;
  }

  /** Polls this Hub's view of `other` every 200 ms (these waits span health polls, not milliseconds) until `ok` holds. */
  async waitForPeer(other: PoolHub, what: string, ok: (p: PeerView) => boolean, timeoutMs: number): Promise<PeerView> {
    const deadline = Date.now() + scaled(timeoutMs);
    for (;;) {
      const p = await this.peer(other);
      if (p && ok(p)) return p;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${this.name} to show ${other.name} ${what}; last: ${JSON.stringify(p)}`);
      await sleep(200);
    }
  }

  /** Waits for this Hub's next good health poll of `other` (its lastSeenAt moves on) and returns the row it left. */
  async nextPoll(other: PoolHub, timeoutMs: number): Promise<PeerView> {
    const seenAt = (await this.peer(other))?.lastSeenAt ?? null;
    return this.waitForPeer(other, 'polled again', (p) => p.lastSeenAt !== null && p.lastSeenAt !== seenAt, timeoutMs);
  }

  async routingLog(): Promise<readonly RoutingLogEntry[]> {
    const res = await this.api<RoutingLogPage>('GET', `${POOL_API}/routing-log?limit=500`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json.entries;
  }

  /** The routing-log row with this id, once it has settled (a row settles as the body ends). */
  async settledRow(id: string, timeoutMs = 15_000): Promise<RoutingLogEntry> {
    return eventually(
      async () => (await this.routingLog()).find((e) => e.id === id && e.outcome !== 'pending'),
      `${this.name}'s routing-log row ${id} to settle`,
      timeoutMs,
    );
  }

  /** The model names this Hub's engines publish (Ollama spells a bare name with :latest). */
  publishedModels(): string[] {
    const names: string[] = [];
    for (const [kind, engine] of Object.entries(this.engines) as [string, SimEngine | undefined][]) {
      if (!engine) continue;
      for (const name of Object.keys(engine.state().perModel)) {
        // A name with a control character is no model's: the Hub does not read it from its engine.
        if (isReadableModelName(name)) names.push(kind === 'ollama' && !name.includes(':') ? `${name}:latest` : name);
      }
    }
    return names;
  }
}

export type Pool<L extends string> = Record<L, PoolHub> & {
  readonly hubs: readonly PoolHub[];
  stop(): Promise<void>;
};

/**
 * Starts engines and Hubs, applies settings, pairs as told and waits for every pairing to be
 * usable. The ports are chosen before any Hub starts (each must name the others), so one can be
 * taken in between by another process; then the whole pool is started again on fresh ports, once.
 */
export async function startPool<L extends string>(spec: PoolSpec<L>): Promise<Pool<L>> {
  try {
    return await startPoolOnce(spec);
  } catch (err) {
    if (!isPortTaken(err)) throw err;
    return startPoolOnce(spec);
  }
}

async function startPoolOnce<L extends string>(spec: PoolSpec<L>): Promise<Pool<L>> {
  const letters = Object.keys(spec.hubs) as L[];
  const ports = {} as Record<L, number>;
  for (const l of letters) ports[l] = await freePort();
  const origins = letters.map((l) => `${nodeName(l)}=http://127.0.0.1:${ports[l]}`).join(',');
  const engines: SimEngine[] = [];
  const hubs = {} as Record<L, PoolHub>;
  const stop = async () => {
    await Promise.allSettled(letters.filter((l) => hubs[l] !== undefined).map((l) => hubs[l].stop()));
    await Promise.allSettled(engines.map((e) => e.close()));
  };
  try {
    // allSettled, not all: a Hub that fails to start must not leave the others starting unseen.
    const started = await Promise.allSettled(
      letters.map(async (letter) => {
        const hs = spec.hubs[letter];
        const hubEngines: PoolHub['engines'] = {};
        const env: Record<string, string> = { HUB_NODE_FQDN: nodeName(letter), HUB_TAILNET_SUFFIX: TAILNET, HUB_POOL_PEER_ORIGINS: origins };
        for (const dialect of ['ollama', 'vllm'] as const) {
          const es = hs[dialect];
          if (!es) continue;
          const engine = await startSimEngine({ timeScale: DEFAULT_TIME_SCALE, ...es, dialect });
          engines.push(engine);
          hubEngines[dialect] = engine;
          env[dialect === 'ollama' ? 'OLLAMA_URL' : 'VLLM_URL'] = engine.url;
        }
        Object.assign(env, hs.env);
        const process = await startHubProcess({ port: ports[letter], env });
        hubs[letter] = new PoolHub({ letter, port: ports[letter], engines: hubEngines, baseEnv: env, process });
        const settings = { ...spec.settings, ...hs.settings };
        if (Object.keys(settings).length > 0) await hubs[letter].patchSettings(settings);
      }),
    );
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    for (const [sender, receiver] of spec.pairs) await pair(hubs[sender], hubs[receiver]);
  } catch (err) {
    await stop();
    throw err;
  }
  return Object.assign({}, hubs, { hubs: letters.map((l) => hubs[l]), stop }) as Pool<L>;
}

/**
 * A pool for the tests of the calling describe: registers there a before hook that starts it and
 * an after hook that stops it, each bounded by START_TIMEOUT_MS, and returns a reader for it.
 * node:test runs hooks in the order they were registered, so a spec that needs something started
 * first (a fake Docker, an engine) is passed as a function, called once that thing's before hook,
 * registered earlier, has run; that thing's after hook, registered after this call, then runs once
 * the pool has stopped.
 */
export function usePool<L extends string>(spec: PoolSpec<L> | (() => PoolSpec<L>)): () => Pool<L> {
  let pool: Pool<L> | undefined;
  before(
    async () => {
      pool = await startPool(typeof spec === 'function' ? spec() : spec);
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      await pool?.stop();
    },
    { timeout: START_TIMEOUT_MS },
  );
  return () => {
    if (pool === undefined) throw new Error('the pool is not running: read it in a test or a hook registered after usePool, once its start has succeeded');
    return pool;
  };
}

/** Pairs through the operator API and waits until each side is connected and holds the other's inventory. */
export async function pair(sender: PoolHub, receiver: PoolHub): Promise<void> {
  const minted = await receiver.api<{ pin: string }>('POST', `${POOL_API}/pairing-pin`);
  assert.equal(minted.status, 200, `PIN on ${receiver.name}: ${JSON.stringify(minted.json)}`);
  const asked = await sender.api('POST', `${POOL_API}/peers/pair`, { nodeFqdn: receiver.name, pin: minted.json.pin });
  assert.equal(asked.status, 200, `pair ${sender.name} -> ${receiver.name}: ${JSON.stringify(asked.json)}`);
  const pending = await eventually(() => receiver.peer(sender), `${sender.name}'s request to reach ${receiver.name}`);
  const approved = await receiver.api<{ callback: string }>('POST', `${POOL_API}/peers/${pending.id}/approve`);
  assert.equal(approved.status, 200, JSON.stringify(approved.json));
  assert.equal(approved.json.callback, 'confirmed', JSON.stringify(approved.json));
  await waitConnected(sender, receiver);
  await waitConnected(receiver, sender);
}

/** Waits until `viewer` shows `other` connected with a snapshot that lists every model other's engines publish. */
export async function waitConnected(viewer: PoolHub, other: PoolHub, timeoutMs = PAIRING_SETTLE_MS): Promise<PeerView> {
  const expected = other.publishedModels();
  return eventually(
    async () => {
      const p = await viewer.peer(other);
      if (p === null || p.status !== 'connected' || p.backends === null) return null;
      const held = new Set(p.backends.flatMap((b) => b.models));
      return expected.every((m) => held.has(m)) ? p : null;
    },
    `${viewer.name} to show ${other.name} connected with its models`,
    timeoutMs,
  );
}

// ---- requests -------------------------------------------------------------------------------

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export const header = (a: { headers: Record<string, string | string[] | undefined> }, name: string): string | null => {
  const v = a.headers[name];
  return typeof v === 'string' ? v : null;
};

/** POSTs a JSON body to a route under the Hub's proxy and reads the whole answer. */
export async function post(hub: PoolHub, path: string, body: unknown): Promise<Answer> {
  const res = await request(`${hub.pool}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: scaled(20_000),
    bodyTimeout: scaled(20_000),
  });
  const text = await res.body.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.statusCode, headers: res.headers as Answer['headers'], text, json };
}

/** A non-streamed OpenAI chat for `model` through the Hub's proxy. */
export function chat(hub: PoolHub, model: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  return post(hub, '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hello' }], ...extra });
}

export async function getJson(hub: PoolHub, path: string): Promise<Answer> {
  const res = await request(`${hub.pool}${path}`, { headersTimeout: scaled(20_000), bodyTimeout: scaled(20_000) });
  const text = await res.body.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.statusCode, headers: res.headers as Answer['headers'], text, json };
}

/** The model names the Hub's two listings offer: /api/tags and /v1/models, each asserted answered. */
export async function listedNames(hub: PoolHub): Promise<{ tags: string[]; openai: string[] }> {
  const tags = await getJson(hub, '/api/tags');
  const openai = await getJson(hub, '/v1/models');
  assert.equal(tags.status, 200, tags.text);
  assert.equal(openai.status, 200, openai.text);
  return {
    tags: (tags.json.models as { name: string }[]).map((m) => m.name),
    openai: (openai.json.data as { id: string }[]).map((m) => m.id),
  };
}

/** What the Hub's own Ollama answers to /api/show for `model`, asked directly, to compare a Hub's answer with. */
export async function engineShow(hub: PoolHub, model: string): Promise<unknown> {
  const res = await request(`${hub.engines.ollama!.url}/api/show`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model }),
  });
  return res.body.json();
}

/**
 * Requests held open through a Hub: each is a chat for `model` that the engine serving it never
 * answers (the test sets a `hang` fault for it there), so it stays in flight until released.
 * By default the model is on the Hub's own engine and each request counts in its queue depth;
 * with `servedBy`, the engine is a peer's, and the wait is for that engine to hold them.
 */
export class HeldRequests {
  readonly #hub: PoolHub;
  readonly #model: string;
  readonly #servedBy: SimEngine | null;
  readonly #held: { abort: AbortController; done: Promise<unknown> }[] = [];

  constructor(hub: PoolHub, model: string, opts: { servedBy?: SimEngine } = {}) {
    this.#hub = hub;
    this.#model = model;
    this.#servedBy = opts.servedBy ?? null;
  }

  get count(): number {
    return this.#held.length;
  }

  /** Opens `n` more and waits until every one is held. */
  async hold(n = 1): Promise<void> {
    const before = this.#held.length;
    const hangingBefore = this.#servedBy?.state().hanging ?? 0;
    for (let i = 0; i < n; i++) {
      const abort = new AbortController();
      const done = request(`${this.#hub.pool}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: this.#model, messages: [{ role: 'user', content: 'hold' }] }),
        signal: abort.signal,
      }).then(
        (res) => res.body.text(),
        () => null,
      );
      this.#held.push({ abort, done });
    }
    const want = before + n;
    const engine = this.#servedBy;
    if (engine) await eventually(() => engine.state().hanging === hangingBefore + n, `${n} more requests held by the engine behind ${this.#hub.name}`);
    else await eventually(async () => (await this.#hub.status()).localNode.queueDepth === want, `${this.#hub.name} to count ${want} held requests`);
  }

  /** Aborts every held request and waits until nothing is held any more. */
  async releaseAll(): Promise<void> {
    const held = this.#held.splice(0);
    for (const h of held) h.abort.abort();
    await Promise.all(held.map((h) => h.done));
    const engine = this.#servedBy;
    if (engine) await eventually(() => engine.state().hanging === 0, 'the held requests to be let go');
    else if (this.#hub.alive) await eventually(async () => (await this.#hub.status()).localNode.queueDepth === 0, `${this.#hub.name}'s queue to empty`);
  }
}

export type { SimEngine, SimModelOptions };
