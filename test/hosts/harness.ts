/**
 * Hubs on hosts of their own (issue 15, item 1): each host is a network namespace with its own
 * address on a shared switch, and runs what a machine in the pool runs: an engine (the
 * simulator, on loopback to its Hub), a Hub (`cihub serve` on 127.0.0.1, as in production), a
 * `tailscale` CLI (the fake, reporting this host and its peers) and Tailscale Serve's part (a
 * TLS terminator with a certificate from the run's own CA, serve-stand-in.ts). So the Hubs find
 * their names the production way (the daemon's status), publish themselves with `tailscale
 * serve`, and reach each other at https://<name> through the system resolver (a hosts file per
 * namespace) and verified TLS. No development dial map (HUB_POOL_PEER_ORIGINS) is set.
 *
 * The test runner stays in the root namespace, wired to the switch like an operator's laptop,
 * and resolves the same names through its own dispatcher (the root /etc/hosts is not touched).
 *
 * Linux only, as root: namespaces need CAP_SYS_ADMIN. stop() removes everything; so does the
 * next start, for whatever a crashed run left (network.ts removeNetwork()).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { Agent, fetch as undiciFetch, request, type Dispatcher } from 'undici';
import type { PeerView } from '../../src/peers/peer-view.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import type { SimFault, SimState } from '../../src/sim/types.js';
import { FAKE_TAILNET_SUFFIX, fakeTailscale, runningStatus, type FakeTailscale } from '../helpers/fake-tailscale.js';
import { CIHUB_BIN, REPO_ROOT, eventually, pathWithoutTailscale } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';
import { SERVE_PUBLISH_RETRY_MS } from '../../src/tailnet/serve-publisher.js';
import { OPERATOR_ADDRESS, createNetwork, leftovers, namespaceProbe, planHosts, removeNetwork, setLink, type HostLink } from './network.js';
import { makeTestCa } from './test-ca.js';
import { toolPath } from './system-commands.js';

export const POOL_API = '/api/inference/pool';
/** Each Hub listens where a Hub listens by default (DESIGN.md: API_PORT 5002), on its own host's loopback. */
const HUB_PORT = 5002;
/** Ollama's usual port, on each host. */
const ENGINE_PORT = 11434;
/** Serve publishes https://<name>/ on 443. */
const HTTPS_PORT = 443;
/** The simulated engines run 100x faster than the timings they report. */
const ENGINE_TIME_SCALE = 0.01;
/** Temp directories of a run start with this; a crashed run's are removed by the next. */
const WORK_DIR_PREFIX = 'cihub-hosts-';
/** One run at a time: the network names are fixed, and a start clears whatever it finds. */
const LOCK_PATH = join(tmpdir(), 'cihub-hosts.lock');
/** Bounds on a broken start, not targets (stretched by HUB_TEST_TIME_SCALE). */
const PROCESS_READY_MS = scaled(60_000);
const STOP_GRACE_MS = scaled(5_000);
/**
 * A Hub publishes itself at start and then once a minute until it has. On a loaded machine its
 * first `tailscale` call can miss the CLI's 5 s deadline (the fake is a node process), so the
 * wait spans two retries: a bound, ended by the publish itself.
 */
const PUBLISH_WAIT_MS = scaled(2 * SERVE_PUBLISH_RETRY_MS + 30_000);
/** Starting the hosts: the slowest case is PUBLISH_WAIT_MS on top of the processes' start. */
export const HOSTS_START_TIMEOUT_MS = PUBLISH_WAIT_MS + 2 * PROCESS_READY_MS;
/** The simulated engines answer in milliseconds, so a forward with no headers after this is a dead link. */
const FORWARD_FIRST_BYTE_MS = scaled(5_000);
export const HOSTS_TEST_TIMEOUT_MS = scaled(180_000);

export const hostName = (label: string): string => `hub-${label}.${FAKE_TAILNET_SUFFIX}`;

export interface HostSpec {
  /** Models the host's engine (Ollama dialect) serves. */
  readonly models: readonly string[];
  /** Extra environment for the Hub. */
  readonly env?: Record<string, string>;
}

export interface HostsSpec<L extends string> {
  readonly hosts: Record<L, HostSpec>;
  /** Settings PATCHed on every Hub once it is up. */
  readonly settings?: Record<string, unknown>;
}

interface HostProcs {
  readonly hub: Proc;
  readonly engine: Proc;
  readonly serve: Proc;
}

interface Proc {
  readonly what: string;
  readonly child: ChildProcess;
  output: string;
  readonly exited: Promise<void>;
}

/** Starts `argv` inside a namespace (`ip netns exec` execs it, so the child's pid is the program's). */
function spawnIn(namespace: string, what: string, argv: readonly string[], env: Record<string, string>): Proc {
  const child = spawn(toolPath('ip'), ['netns', 'exec', namespace, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc: Proc = { what, child, output: '', exited: new Promise((res) => child.once('exit', () => res())) };
  child.stdout!.on('data', (d: Buffer) => (proc.output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (proc.output += d.toString()));
  return proc;
}

async function untilReady(proc: Proc, ready: () => boolean, boundMs = PROCESS_READY_MS): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!ready()) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`${proc.what} exited before it was ready:\n${proc.output}`);
    if (Date.now() > deadline) throw new Error(`${proc.what} was not ready within ${boundMs} ms:\n${proc.output}`);
    await sleep(25);
  }
}

async function stopProc(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const inTime = await Promise.race([proc.exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
  if (!inTime) {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
}

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

async function read(res: Dispatcher.ResponseData): Promise<Answer> {
  const text = await res.body.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.statusCode, headers: res.headers as Answer['headers'], text, json };
}

/** One host: its namespace and address, its Hub at https://<name>, its engine. */
export class Host {
  readonly label: string;
  readonly name: string;
  readonly link: HostLink;
  readonly dataDir: string;
  readonly tailscale: FakeTailscale;
  readonly #dispatcher: Dispatcher;
  readonly #procs: HostProcs;
  #operatorKey = '';

  constructor(init: { label: string; link: HostLink; dataDir: string; tailscale: FakeTailscale; dispatcher: Dispatcher; procs: HostProcs }) {
    this.label = init.label;
    this.name = hostName(init.label);
    this.link = init.link;
    this.dataDir = init.dataDir;
    this.tailscale = init.tailscale;
    this.#dispatcher = init.dispatcher;
    this.#procs = init.procs;
  }

  get address(): string {
    return this.link.address;
  }
  /** Where apps and peers reach this Hub. */
  get url(): string {
    return `https://${this.name}`;
  }
  get processes(): readonly ChildProcess[] {
    return [this.#procs.hub.child, this.#procs.engine.child, this.#procs.serve.child];
  }
  /** Everything the Hub wrote (its JSON log lines). */
  log(): string {
    return this.#procs.hub.output;
  }

  /** @internal Reads the operator key once the Hub has written it. */
  loadOperatorKey(): void {
    this.#operatorKey = readFileSync(join(this.dataDir, 'operator.key'), 'utf8').trim();
  }

  /** A request to this Hub at https://<name>, as the test runner's laptop sends it. */
  async fetch(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
    const res = await request(`${this.url}${path}`, {
      dispatcher: this.#dispatcher,
      method: (init.method ?? 'GET') as 'GET',
      headers: init.headers ?? {},
      body: init.body,
      headersTimeout: scaled(60_000),
      bodyTimeout: scaled(60_000),
    });
    return read(res);
  }

  /** An operator call (the operator key as bearer), over https://<name>. */
  api(method: string, path: string, body?: unknown): Promise<Answer> {
    return this.fetch(path, {
      method,
      headers: { authorization: `Bearer ${this.#operatorKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /** An app's chat through this Hub's pool proxy. */
  chat(model: string, extra: Record<string, unknown> = {}): Promise<Answer> {
    return this.fetch(`${POOL_API}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], ...extra }),
    });
  }

  /** An app's official OpenAI client at https://<name>/api/inference/pool/v1, resolving and trusting names as the harness does. */
  openai(): OpenAI {
    const dispatcher = this.#dispatcher;
    const fetchThroughHarness = (url: string | URL | Request, init?: RequestInit) =>
      undiciFetch(url as string, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
    // No key: a caller on the tailnet is inside by default (spec, "What guards what").
    return new OpenAI({ baseURL: `${this.url}${POOL_API}/v1`, apiKey: 'unused-on-the-tailnet', maxRetries: 0, fetch: fetchThroughHarness });
  }

  async status(): Promise<PoolStatus> {
    const res = await this.api('GET', `${POOL_API}/status`);
    assert.equal(res.status, 200, res.text);
    return res.json as PoolStatus;
  }

  async patchSettings(patch: Record<string, unknown>): Promise<void> {
    const res = await this.api('PATCH', `${POOL_API}/settings`, patch);
    assert.equal(res.status, 200, `PATCH settings on ${this.name}: ${res.text}`);
  }

  /** This Hub's row for another host. */
  async peer(other: Host): Promise<PeerView | null> {
    const res = await this.api('GET', `${POOL_API}/peers`);
    assert.equal(res.status, 200, res.text);
    return (res.json as { peers: PeerView[] }).peers.find((p) => p.nodeFqdn === other.name) ?? null;
  }

  /** Waits until this Hub's row for `other` satisfies `ok`. */
  waitForPeer(other: Host, what: string, ok: (p: PeerView) => boolean, timeoutMs?: number): Promise<PeerView> {
    return eventually(
      async () => {
        const p = await this.peer(other);
        return p !== null && ok(p) ? p : null;
      },
      `${this.name} to show ${other.name} ${what}`,
      timeoutMs,
    );
  }

  async routingLog(): Promise<readonly RoutingLogEntry[]> {
    const res = await this.api('GET', `${POOL_API}/routing-log?limit=500`);
    assert.equal(res.status, 200, res.text);
    return (res.json as RoutingLogPage).entries;
  }

  /** The routing-log row with this id once it has settled. */
  settledRow(id: string): Promise<RoutingLogEntry> {
    return eventually(
      async () => (await this.routingLog()).find((e) => e.id === id && e.outcome !== 'pending'),
      `${this.name}'s routing-log row ${id} to settle`,
    );
  }

  /** The engine's live state, read over the switch. */
  async engineState(): Promise<SimState> {
    const res = await request(`http://${this.address}:${ENGINE_PORT}/__sim/state`, { dispatcher: this.#dispatcher });
    assert.equal(res.statusCode, 200);
    return (await res.body.json()) as SimState;
  }

  /** Requests the engine has been sent for `model` (all routes). */
  async engineRequests(model: string): Promise<number> {
    const state = await this.engineState();
    return state.perModel[model]?.requests ?? 0;
  }

  async setEngineFault(fault: SimFault): Promise<void> {
    const res = await request(`http://${this.address}:${ENGINE_PORT}/__sim/faults`, {
      dispatcher: this.#dispatcher,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(fault),
    });
    assert.equal(res.statusCode, 200, await res.body.text());
  }

  /** Pulls this host's cable: its switch port goes down; everything on the host keeps running. */
  linkDown(): void {
    setLink(this.link, false);
  }
  linkUp(): void {
    setLink(this.link, true);
  }

  /** @internal */
  async stop(): Promise<void> {
    await stopProc(this.#procs.hub);
    await Promise.all([stopProc(this.#procs.engine), stopProc(this.#procs.serve)]);
  }
}

export type Hosts<L extends string> = Record<L, Host> & {
  readonly all: readonly Host[];
  /** Removes every process, namespace, link, hosts file and temp dir of the run. Safe to call twice. */
  stop(): Promise<void>;
};

/** Why hosts cannot be made on this machine, or null when they can (root on Linux, with `ip` and `openssl`). */
export function hostsUnavailable(): string | null {
  if (process.platform !== 'linux') return `network namespaces are Linux only (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'making network namespaces needs root';
  for (const tool of ['ip', 'openssl']) {
    try {
      toolPath(tool);
    } catch (err) {
      return (err as Error).message;
    }
  }
  const refused = namespaceProbe();
  return refused === null ? null : `this machine refuses network namespaces: ${refused}`;
}

function takeLock(): void {
  if (existsSync(LOCK_PATH)) {
    const pid = Number.parseInt(readFileSync(LOCK_PATH, 'utf8'), 10);
    let alive = false;
    try {
      alive = Number.isInteger(pid) && pid !== process.pid && process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (alive) throw new Error(`another hosts run (pid ${pid}) holds ${LOCK_PATH}; the harness runs one at a time`);
  }
  writeFileSync(LOCK_PATH, String(process.pid));
}

function releaseLock(): void {
  try {
    if (readFileSync(LOCK_PATH, 'utf8').trim() === String(process.pid)) rmSync(LOCK_PATH, { force: true });
  } catch {
    // no lock
  }
}

/** Removes a crashed run's network, processes and temp dirs. Only after takeLock(): a live run is never touched. */
export function removeLeftovers(): void {
  removeNetwork();
  for (const name of readdirSync(tmpdir())) if (name.startsWith(WORK_DIR_PREFIX)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
}

/** Whether the fake's serve config has an entry for `hostPort`; false while the fake is still writing its state file. */
function published(tailscale: FakeTailscale, hostPort: string): boolean {
  try {
    return JSON.stringify(tailscale.state().serve ?? {}).includes(hostPort);
  } catch {
    return false;
  }
}

/** Temp dirs and the lock a run leaves when it does not end cleanly, beside the network's leftovers. */
export function harnessLeftovers(): string[] {
  const dirs = readdirSync(tmpdir())
    .filter((name) => name.startsWith(WORK_DIR_PREFIX))
    .map((name) => join(tmpdir(), name));
  return [...leftovers(), ...dirs, ...(existsSync(LOCK_PATH) ? [LOCK_PATH] : [])];
}

/** The `tailscale status --json` a host's fake CLI prints: itself and every other host, each at its harness address. */
function statusFor(self: { label: string; address: string }, others: readonly { label: string; address: string }[]): Record<string, unknown> {
  const base = runningStatus(`hub-${self.label}`);
  const selfRow = base.Self as Record<string, unknown>;
  return {
    ...base,
    TailscaleIPs: [self.address],
    Self: { ...selfRow, TailscaleIPs: [self.address] },
    Peer: Object.fromEntries(
      others.map((o, i) => [
        `nodekey:${String(i + 1).padStart(64, '0')}`,
        {
          ID: `nHOST${o.label}CNTRL`,
          PublicKey: `nodekey:${i + 1}`,
          HostName: `hub-${o.label}`,
          DNSName: `${hostName(o.label)}.`,
          OS: 'linux',
          TailscaleIPs: [o.address],
          Online: true,
          LastSeen: '0001-01-01T00:00:00Z',
        },
      ]),
    ),
  };
}

/** The test runner's name resolution: the harness's names, and nothing else. */
function harnessLookup(names: ReadonlyMap<string, string>): LookupFunction {
  return (hostname, options, callback) => {
    const address = names.get(hostname.toLowerCase());
    if (address === undefined) callback(Object.assign(new Error(`${hostname} is not a harness host`), { code: 'ENOTFOUND' }), '', 4);
    else if (options.all) (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };
}

let exitHookInstalled = false;
const running = new Set<() => void>();

/** A crash or a signal still takes the network down: the clean-up is synchronous, so it runs in 'exit'. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const teardown of running) teardown();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      for (const teardown of running) teardown();
      process.exit(130);
    });
}

/**
 * Makes the network and the CA, starts every host, and returns once each Hub answers at
 * https://<name> from the test runner. Any failure on the way tears everything down again.
 */
export async function startHosts<L extends string>(spec: HostsSpec<L>): Promise<Hosts<L>> {
  takeLock();
  removeLeftovers();
  const labels = Object.keys(spec.hosts) as L[];
  const links = planHosts(labels);
  const names = links.map((l) => ({ name: hostName(l.label), address: l.address }));
  const workDir = mkdtempSync(join(tmpdir(), WORK_DIR_PREFIX));
  const hosts = {} as Record<L, Host>;
  const procs: Proc[] = [];
  let dispatcher: Agent | null = null;
  let stopped = false;
  const teardownNow = () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    removeNetwork();
    rmSync(workDir, { recursive: true, force: true });
    releaseLock();
  };
  running.add(teardownNow);
  installExitHook();
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.allSettled(Object.values<Host>(hosts).map((h) => h.stop()));
    await Promise.allSettled(procs.map(stopProc));
    await dispatcher?.close().catch(() => undefined);
    teardownNow();
    running.delete(teardownNow);
  };
  try {
    createNetwork(links, names);
    const ca = makeTestCa(workDir);
    // The test runner trusts the run's CA and nothing else, and resolves only the hosts' names.
    const trusting = new Agent({ connect: { ca: ca.certPem, lookup: harnessLookup(new Map(names.map((n) => [n.name, n.address]))) } });
    dispatcher = trusting;
    const started = await Promise.allSettled(
      links.map(async (link) => {
        const label = link.label as L;
        const hs = spec.hosts[label];
        const name = hostName(label);
        const hostDir = mkdtempSync(join(workDir, `${label}-`));
        const dataDir = join(hostDir, 'data');
        const tailscale = fakeTailscale(
          {
            status: statusFor(
              link,
              links.filter((l) => l !== link),
            ),
          },
          hostDir,
        );
        const cert = ca.issue(name);
        const node = process.execPath;
        const baseEnv = { PATH: pathWithoutTailscale(), HOME: hostDir };
        const engine = spawnIn(
          link.namespace,
          `${name}'s engine`,
          [
            node,
            join(REPO_ROOT, 'dist/test/hosts/host-engine.js'),
            JSON.stringify({ dialect: 'ollama', models: hs.models, host: '0.0.0.0', port: ENGINE_PORT, timeScale: ENGINE_TIME_SCALE }),
          ],
          baseEnv,
        );
        const serve = spawnIn(
          link.namespace,
          `${name}'s Serve stand-in`,
          [
            node,
            join(REPO_ROOT, 'dist/test/hosts/serve-stand-in.js'),
            JSON.stringify({
              name,
              address: link.address,
              port: HTTPS_PORT,
              certPath: cert.certPath,
              keyPath: cert.keyPath,
              statePath: join(tailscale.dir, 'state.json'),
            }),
          ],
          baseEnv,
        );
        procs.push(engine, serve);
        await Promise.all([untilReady(engine, () => engine.output.includes('listening')), untilReady(serve, () => serve.output.includes('listening'))]);
        const hub = spawnIn(
          link.namespace,
          `${name}'s Hub`,
          [node, CIHUB_BIN, 'serve', '--port', String(HUB_PORT), '--host', '127.0.0.1', '--data-dir', dataDir],
          {
            ...baseEnv,
            PATH: [tailscale.dir, baseEnv.PATH].join(delimiter),
            HOME: dataDir,
            NODE_EXTRA_CA_CERTS: ca.certPath,
            OLLAMA_URL: `http://127.0.0.1:${ENGINE_PORT}`,
            VLLM_URL: '',
            LEMONADE_URL: '',
            OMLX_URL: '',
            LLAMACPP_URL: '',
            // A host whose link is down never answers; the walk moves on at this deadline instead of the spec's 300 s default, sized for real engines loading models.
            HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(FORWARD_FIRST_BYTE_MS),
            ...hs.env,
          },
        );
        procs.push(hub);
        const host = new Host({ label, link, dataDir, tailscale, dispatcher: trusting, procs: { hub, engine, serve } });
        hosts[label] = host;
        await untilReady(hub, () => existsSync(join(dataDir, 'hub.json')));
        host.loadOperatorKey();
        // The Hub publishes itself with `tailscale serve`; until it has, its name serves nothing.
        await untilReady(hub, () => published(tailscale, `${name}:${HTTPS_PORT}`), PUBLISH_WAIT_MS);
        await eventually(async () => (await host.fetch(`${POOL_API}/identify`).catch(() => null))?.status === 200, `${name} to answer at ${host.url}`);
        if (spec.settings) await host.patchSettings(spec.settings);
      }),
    );
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await stop();
    throw err;
  }
  return Object.assign({}, hosts, { all: labels.map((l) => hosts[l]), stop }) as Hosts<L>;
}

/**
 * Pairs two hosts the way their operators would, each on their own Hub: the receiver's operator
 * mints a PIN, the sender's asks with it at the receiver's name, the receiver's approves; then
 * waits until each side shows the other connected.
 */
export async function pair(sender: Host, receiver: Host): Promise<void> {
  const minted = await receiver.api('POST', `${POOL_API}/pairing-pin`);
  assert.equal(minted.status, 200, `PIN on ${receiver.name}: ${minted.text}`);
  const asked = await sender.api('POST', `${POOL_API}/peers/pair`, { nodeFqdn: receiver.name, pin: (minted.json as { pin: string }).pin });
  assert.equal(asked.status, 200, `pair ${sender.name} -> ${receiver.name}: ${asked.text}`);
  const pending = await receiver.waitForPeer(sender, 'asking to pair', () => true);
  const approved = await receiver.api('POST', `${POOL_API}/peers/${pending.id}/approve`);
  assert.equal(approved.status, 200, approved.text);
  assert.equal((approved.json as { callback: string }).callback, 'confirmed', approved.text);
  await sender.waitForPeer(receiver, 'connected', (p) => p.status === 'connected' && p.backends !== null);
  await receiver.waitForPeer(sender, 'connected', (p) => p.status === 'connected' && p.backends !== null);
}

export { OPERATOR_ADDRESS };
