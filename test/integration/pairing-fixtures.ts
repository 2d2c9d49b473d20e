/**
 * Shared fixtures for the pairing security tests (pairing-*.test.ts): real Hub processes that
 * reach each other by name through HUB_POOL_PEER_ORIGINS, a "fake peer" that lives in the test
 * process and holds its own Ed25519 key (so it can sign, forge, replay and skew requests at
 * will), and a recording proxy that sits between two real Hubs and keeps what one sent the other.
 * Everything listens on loopback only.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, randomUUID, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signRequest } from '../../src/peer-auth/signed-headers.js';
import type { PeerView } from '../../src/peers/peer-view.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, freePort, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

export const SUFFIX = 'tail0.ts.net';
export const POOL = '/api/inference/pool';
export const fqdn = (host: string): string => `${host}.${SUFFIX}`;

// ---- raw HTTP ------------------------------------------------------------------------------

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** Parsed body, loosely typed: tests read whatever field they assert on. */
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a test reads any JSON answer
}

export interface SendOptions {
  readonly headers?: Record<string, string>;
  /** An object is sent as JSON; a Buffer or string as is. */
  readonly body?: unknown;
  /** Source address on loopback (127.0.0.x), so one test can be several callers. */
  readonly localAddress?: string;
}

export function bodyBytes(body: unknown): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) return body;
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
}

/** One HTTP request with nothing added: no operator key, no client-side niceties. */
export function send(baseUrl: string, method: string, path: string, opts: SendOptions = {}): Promise<Answer> {
  const url = new URL(baseUrl);
  const payload = opts.body === undefined ? null : bodyBytes(opts.body);
  const headers: Record<string, string> = {
    ...(payload !== null && opts.headers?.['content-type'] === undefined ? { 'content-type': 'application/json' } : {}),
    ...opts.headers,
  };
  if (payload !== null) headers['content-length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers, agent: false, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

// ---- a peer the test controls ---------------------------------------------------------------

export interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  status?: number;
}

export interface SignOptions {
  readonly recipient: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly nowMs?: number;
  readonly nonce?: string;
  /** Sign with this key instead of the pinned one (a forgery). */
  readonly key?: KeyObject;
  /** Claim this name in X-Hub-Pool-Peer. */
  readonly senderFqdn?: string;
}

/**
 * A pool peer that is the test process: its own UUID and key pair, a loopback server that
 * answers the calls a Hub makes to a peer (confirm, capabilities, unpair), and a record of them.
 * `legacy` answers like a build without keys: no identity on confirm or capabilities.
 */
export class FakePeer {
  readonly name: string;
  readonly uuid = randomUUID();
  readonly privateKey: KeyObject;
  readonly publicKey: string;
  /** The token this peer issues the Hub in its pairing request. */
  readonly token = randomBytes(32).toString('base64url');
  readonly received: Recorded[] = [];
  /** Tokens the Hub issued this peer, from its /pair/confirm. */
  readonly issued: string[] = [];
  readonly legacy: boolean;
  /** When set, answers GET /capabilities instead of the well-formed document (a hostile peer). */
  answerCapabilities: ((res: ServerResponse) => void) | null = null;
  /** When set, answers the Hub's forwards (POST /local/*); unset, they get this fake's own 404. */
  answerLocal: ((res: ServerResponse) => void) | null = null;
  #server: Server | null = null;
  #port = 0;

  constructor(host: string, opts: { legacy?: boolean } = {}) {
    this.name = fqdn(host);
    this.legacy = opts.legacy ?? false;
    const pair = generateKeyPairSync('ed25519');
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey.export({ format: 'jwk' }).x as string;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        this.received.push(rec);
        const reply = (status: number, body: unknown) => {
          rec.status = status;
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        };
        const path = rec.url.split('?')[0];
        if (rec.method === 'POST' && path === `${POOL}/pair/confirm`) {
          const token = (JSON.parse(rec.body.toString('utf8') || '{}') as { token?: unknown }).token;
          if (typeof token === 'string') this.issued.push(token);
          return reply(200, this.legacy ? {} : { nodeUuid: this.uuid, publicKey: this.publicKey });
        }
        if (rec.method === 'GET' && path === `${POOL}/capabilities`) {
          if (this.answerCapabilities) {
            rec.status = 200;
            return this.answerCapabilities(res);
          }
          return reply(200, { nodeUuid: this.legacy ? null : this.uuid, hardwareTier: null, backends: [], inFlightRequests: 0, acceptingWork: true });
        }
        if (rec.method === 'POST' && path?.startsWith(`${POOL}/local/`) && this.answerLocal) {
          rec.status = 0;
          return this.answerLocal(res);
        }
        if (rec.method === 'POST' && (path === `${POOL}/pair/unpair` || path === `${POOL}/pair/reject`)) return reply(200, { removed: true });
        return reply(404, { error: { code: 'HUB_ERR_NOT_FOUND', message: 'fake peer' } });
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The signed headers this peer would send; everything can be overridden to build an attack. */
  sign(o: SignOptions): Record<string, string> {
    const key = o.key ?? this.privateKey;
    return signRequest({
      sign: (data) => cryptoSign(null, data, key),
      senderUuid: this.uuid,
      senderFqdn: o.senderFqdn ?? this.name,
      recipientUuid: o.recipient,
      method: o.method,
      path: o.path,
      body: bodyBytes(o.body),
      nowMs: o.nowMs ?? Date.now(),
      ...(o.nonce === undefined ? {} : { nonce: o.nonce }),
    });
  }

  /** Signs and sends in one step. */
  signed(hub: { url: string }, o: SignOptions & { localAddress?: string }): Promise<Answer> {
    return send(hub.url, o.method, o.path, { headers: this.sign(o), ...(o.body === undefined ? {} : { body: o.body }) });
  }

  /** The legacy credential: this peer's name and a bearer token. */
  bearer(hub: { url: string }, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
    return send(hub.url, method, path, {
      headers: { 'x-hub-pool-peer': this.name, authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { body }),
    });
  }

  /** The unauthenticated pairing request, with a PIN (and this peer's identity) or without. */
  requestPairing(hub: { url: string }, pin?: string): Promise<Answer> {
    const body = { fromNodeFqdn: this.name, token: this.token, ...(pin === undefined ? {} : { pin, nodeUuid: this.uuid, publicKey: this.publicKey }) };
    return send(hub.url, 'POST', `${POOL}/pair/request`, { body });
  }
}

// ---- a proxy that records what one Hub sends another -----------------------------------------

export class RecordingProxy {
  readonly records: Recorded[] = [];
  readonly #target: URL;
  #server: Server | null = null;
  #port = 0;

  constructor(targetOrigin: string) {
    this.#target = new URL(targetOrigin);
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, body: Buffer.concat(chunks) };
        this.records.push(rec);
        const upstream = httpRequest(
          {
            host: this.#target.hostname,
            port: this.#target.port,
            method: rec.method,
            path: rec.url,
            headers: { ...req.headers, host: this.#target.host },
            agent: false,
          },
          (up) => {
            rec.status = up.statusCode ?? 0;
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstream.on('error', () => {
          rec.status = 502;
          if (!res.headersSent) res.writeHead(502).end();
          else res.destroy();
        });
        upstream.end(rec.body);
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The signed headers of a recorded request, verbatim, as a replay carries them. */
  static credentials(rec: Recorded): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(rec.headers)) {
      if (typeof v === 'string' && (k.startsWith('x-hub-pool-') || k === 'authorization' || k === 'content-type')) out[k] = v;
    }
    return out;
  }
}

// ---- Hubs that know each other by name --------------------------------------------------------

/** Ports first, so every Hub's origin map can name the others before any of them starts. */
export async function reservePorts<K extends string>(names: readonly K[]): Promise<Record<K, number>> {
  const out = {} as Record<K, number>;
  for (const n of names) out[n] = await freePort();
  return out;
}

/** HUB_POOL_PEER_ORIGINS from a name -> origin table. */
export function originsEnv(map: Record<string, string>): string {
  return Object.entries(map)
    .map(([name, origin]) => `${name}=${origin}`)
    .join(',');
}

export function hubEnv(name: string, origins: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return { HUB_NODE_FQDN: name, HUB_TAILNET_SUFFIX: SUFFIX, HUB_POOL_PEER_ORIGINS: originsEnv(origins), ...extra };
}

/** Starts a Hub on a reserved port, retrying once if the port was taken in between. */
export async function startNamedHub(opts: {
  name: string;
  port: number;
  origins: Record<string, string>;
  env?: Record<string, string>;
  dataDir?: string;
}): Promise<HubProcess> {
  return startHubProcess({ port: opts.port, env: hubEnv(opts.name, opts.origins, opts.env), ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) });
}

/** Two named Hubs, each able to dial the other by name, not paired: the start of a pairing walkthrough. */
export async function startUnpairedHubs(a: string, b: string): Promise<[HubProcess, HubProcess]> {
  const ports = await reservePorts(['a', 'b']);
  const origins = { [a]: `http://127.0.0.1:${ports.a}`, [b]: `http://127.0.0.1:${ports.b}` };
  return startTogether([startNamedHub({ name: a, port: ports.a, origins }), startNamedHub({ name: b, port: ports.b, origins })]);
}

export async function status(hub: HubProcess): Promise<PoolStatus> {
  const res = await hub.api<PoolStatus>('GET', `${POOL}/status`);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json;
}

export async function peers(hub: HubProcess): Promise<PeerView[]> {
  const res = await hub.api<{ peers: PeerView[] }>('GET', `${POOL}/peers`);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json.peers;
}

export async function peerNamed(hub: HubProcess, name: string): Promise<PeerView | null> {
  return (await peers(hub)).find((p) => p.nodeFqdn === name) ?? null;
}

export async function mintPin(hub: HubProcess): Promise<{ pin: string; fingerprint: string; nodeFqdn: string }> {
  const res = await hub.api<{ pin: string; fingerprint: string; nodeFqdn: string }>('POST', `${POOL}/pairing-pin`);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json;
}

/** This Hub's node UUID (minting its identity if it has none yet). */
export async function nodeUuidOf(hub: HubProcess): Promise<string> {
  let s = await status(hub);
  if (s.localNode.identity === null) {
    await mintPin(hub);
    await hub.api('DELETE', `${POOL}/pairing-pin`);
    s = await status(hub);
  }
  assert.ok(s.localNode.identity?.nodeUuid, 'the Hub has an identity');
  return s.localNode.identity.nodeUuid;
}

export async function approve(hub: HubProcess, peerName: string): Promise<{ callback: string; reason: string | null }> {
  const row = await peerNamed(hub, peerName);
  assert.ok(row, `${peerName} is listed on the approving Hub`);
  const res = await hub.api<{ callback: string; reason: string | null }>('POST', `${POOL}/peers/${row.id}/approve`);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json;
}

/**
 * Pairs Hub `a` (named aName) with Hub `b` (named bName) through the operator API, with a PIN
 * unless told otherwise, and waits until both sides show the other connected and polled.
 */
export async function pairHubs(
  a: HubProcess,
  aName: string,
  b: HubProcess,
  bName: string,
  opts: { pin?: boolean; settle?: 'signed' | 'connected' } = {},
): Promise<void> {
  const body: Record<string, unknown> = { nodeFqdn: bName };
  if (opts.pin !== false) body.pin = (await mintPin(b)).pin;
  const asked = await a.api('POST', `${POOL}/peers/pair`, body);
  assert.equal(asked.status, 200, JSON.stringify(asked.json));
  const approved = await approve(b, aName);
  assert.equal(approved.callback, 'confirmed', JSON.stringify(approved));
  await waitPaired(a, bName, b, aName, opts.settle ?? 'signed');
}

export async function waitPaired(
  a: HubProcess,
  bName: string,
  b: HubProcess,
  aName: string,
  settle: 'signed' | 'connected' = 'signed',
  timeoutMs = 30_000,
): Promise<void> {
  const ready = async (hub: HubProcess, name: string) => {
    const p = await peerNamed(hub, name);
    return p !== null && p.status === 'connected' && p.lastSeenAt !== null && (settle === 'connected' || p.authMode === 'signed') ? p : null;
  };
  await eventually(() => ready(a, bName), `${bName} connected on its requester`, timeoutMs);
  await eventually(() => ready(b, aName), `${aName} connected on its approver`, timeoutMs);
}

/**
 * Pairs a fake peer with a Hub the way a peer of this build would: a PIN-carrying request with
 * its identity, then the operator's approval, whose confirm call the fake answers with its key.
 * Returns the Hub's UUID (from the PIN answer) and the token the Hub issued the fake.
 */
export async function pairFakeWithPin(hub: HubProcess, fake: FakePeer): Promise<{ hubUuid: string; issuedToken: string }> {
  const { pin } = await mintPin(hub);
  const asked = await fake.requestPairing(hub, pin);
  assert.equal(asked.status, 200, asked.text);
  assert.equal(typeof asked.json.nodeUuid, 'string', 'a valid PIN is answered with the Hub identity');
  const approved = await approve(hub, fake.name);
  assert.equal(approved.callback, 'confirmed', JSON.stringify(approved));
  const issuedToken = fake.issued.at(-1);
  assert.ok(issuedToken, 'the Hub sent the fake peer a token on confirm');
  return { hubUuid: asked.json.nodeUuid as string, issuedToken };
}

/** Pairs a fake peer without a PIN: a name and a token, approved by the operator. */
export async function pairFakeWithoutPin(hub: HubProcess, fake: FakePeer): Promise<{ issuedToken: string }> {
  const asked = await fake.requestPairing(hub);
  assert.equal(asked.status, 200, asked.text);
  assert.deepEqual(asked.json, { received: true });
  const approved = await approve(hub, fake.name);
  assert.equal(approved.callback, 'confirmed', JSON.stringify(approved));
  const issuedToken = fake.issued.at(-1);
  assert.ok(issuedToken);
  return { issuedToken };
}

/**
 * Resolves just after `hub`'s next successful poll of `peerName`. A test that restarts the peer
 * right after this has a whole poll interval before the next probe, so no probe lands in the
 * moment the port is closed.
 */
export async function justPolled(hub: HubProcess, peerName: string, timeoutMs: number): Promise<void> {
  const before = (await peerNamed(hub, peerName))?.lastSeenAt ?? null;
  await eventually(
    async () => {
      const seen = (await peerNamed(hub, peerName))?.lastSeenAt ?? null;
      return seen !== null && seen !== before;
    },
    `a fresh poll of ${peerName}`,
    timeoutMs,
  );
}

/** A source address on loopback other than 127.0.0.1, a fresh one each call. */
let nextAddress = 2;
export function freshSource(): string {
  const n = nextAddress++;
  assert.ok(n < 255, 'out of loopback source addresses');
  return `127.0.0.${n}`;
}

export function isAlive(hub: HubProcess): boolean {
  return hub.child.exitCode === null && hub.child.signalCode === null;
}

export { eventually };
export type { HubProcess };
