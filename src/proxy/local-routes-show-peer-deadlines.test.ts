/**
 * The two bounds on POST /api/show's peer lookup, over loopback sockets. The spec bounds the wait
 * for a peer's response headers (15 s from the dial, then the next peer is asked); the description
 * after them is read under a bound of its own. One 15 s timer from the dial to the last byte once
 * cut off a peer that sent its headers at 14 s and its body after the 15th (audit).
 *
 * The peers are plain HTTP servers scripted per test, the app a real HTTP client of a server in
 * front of LocalRoutes. The bounds are shortened through the routes' deps where a test has to wait
 * one out, so each is met in a second or two rather than fifteen.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import pino from 'pino';
import { scaled } from '../../test/helpers/time-scale.js';
import type { BackendHealth } from '../engines/health-snapshot.js';
import type { UsablePeer } from '../placement/candidates.js';
import { usablePeerFixture } from '../placement/usable-peer.fixture.js';
import { LocalRoutes, PEER_SHOW_BODY_TIMEOUT_MS, type LocalRoutesDeps } from './local-routes.js';
import type { PoolAccess, PoolProxy } from './pool-proxy.js';
import { PROXY_PREFIX } from './route-table.js';

const MODEL = 'peer-only:8b';
const DESCRIPTION = { details: { family: 'qwen3', parameter_size: '8B' }, capabilities: ['completion'] };
const OTHER_DESCRIPTION = { details: { family: 'qwen3', parameter_size: '8B' }, capabilities: ['completion', 'tools'] };
const SHOW_PATH = `${PROXY_PREFIX}/local/api/show`;

type PeerAnswer = (res: ServerResponse) => void;

interface FakePeer {
  readonly peer: UsablePeer;
  /** The lookup's response, once it reached this peer. */
  readonly asked: Promise<ServerResponse>;
  close(): Promise<void>;
}

async function startPeer(name: string, answer: PeerAnswer): Promise<FakePeer> {
  let reached: (res: ServerResponse) => void = () => {};
  const asked = new Promise<ServerResponse>((resolve) => (reached = resolve));
  const server: Server = createServer((req, res) => {
    req.resume();
    if (req.url !== SHOW_PATH) return void res.writeHead(404).end();
    reached(res);
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    peer: usablePeerFixture(name, [{ kind: 'ollama', models: [MODEL] }], { origin }),
    asked,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An Agent that says when response headers reach the Hub, so a test can act after that moment
 * rather than guess at it.
 */
function headersWatchingDispatcher(): { dispatcher: Dispatcher; agent: Agent; headersIn: Promise<void> } {
  const agent = new Agent();
  let arrived: () => void = () => {};
  const headersIn = new Promise<void>((resolve) => (arrived = resolve));
  const dispatcher = agent.compose(
    (dispatch) => (opts, handler) =>
      dispatch(
        opts,
        new Proxy(handler, {
          get(target, key, receiver) {
            const value: unknown = Reflect.get(target, key, receiver);
            if (typeof value !== 'function') return value;
            if (key === 'onHeaders' || key === 'onResponseStart')
              return (...args: unknown[]) => {
                arrived();
                return (value as (...a: unknown[]) => unknown).apply(target, args);
              };
            return (value as (...a: unknown[]) => unknown).bind(target);
          },
        }),
      ),
  );
  return { dispatcher, agent, headersIn };
}

const open: { close(): Promise<void> }[] = [];

async function frontFor(
  peers: readonly FakePeer[],
  dispatcher: Dispatcher,
  bounds: Pick<LocalRoutesDeps, 'peerShowHeadersTimeoutMs' | 'peerShowBodyTimeoutMs'>,
) {
  const routes = new LocalRoutes({
    pool: { usablePeers: () => peers.map((p) => p.peer), peerAuth: async () => ({}) } as unknown as PoolAccess,
    // This node's own engines hold nothing: the lookup goes to the peers.
    health: { snapshot: async () => [] } as unknown as BackendHealth,
    dispatcher,
    proxy: { showOrder: (_model: string, ranked: readonly UsablePeer[]) => [...ranked] } as unknown as PoolProxy,
    logger: pino({ level: 'silent' }),
    unservable: () => false,
    ...bounds,
  });
  const front = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void routes.ollamaShow(Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  open.push({
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  });
  return `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}

async function show(url: string): Promise<{ status: number; body: unknown }> {
  const res = await request(`${url}/api/show`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL }),
  });
  return { status: res.statusCode, body: await res.body.json() };
}

describe("/api/show's peer lookup: a bound on the headers, and one on the body after them", () => {
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  it('relays a peer that sends its headers inside the header deadline and its body after that deadline has passed', { timeout: scaled(30_000) }, async () => {
    const headersMs = scaled(2_000);
    const agent = new Agent();
    open.push({ close: () => agent.close() });
    // Headers at half the deadline, counted from when the lookup reached the peer (after the
    // dial the deadline counts from), leaving half of it for a loaded machine; the body a whole
    // deadline after them, past it.
    const late = await startPeer('late', (res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        setTimeout(() => res.end(JSON.stringify(DESCRIPTION)), headersMs);
      }, headersMs / 2);
    });
    open.push(late);
    const url = await frontFor([late], agent, { peerShowHeadersTimeoutMs: headersMs });
    const answer = await show(url);
    assert.deepEqual(answer, { status: 200, body: DESCRIPTION });
  });

  it('gives up on a peer whose body stalls after its headers once the body bound has passed, and asks the next', { timeout: scaled(30_000) }, async () => {
    const bodyMs = scaled(500);
    const agent = new Agent();
    open.push({ close: () => agent.close() });
    const stalls = await startPeer('stalls', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"details":');
    });
    const next = await startPeer('next', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(OTHER_DESCRIPTION)));
    open.push(stalls, next);
    const url = await frontFor([stalls, next], agent, { peerShowBodyTimeoutMs: bodyMs });
    const startedMs = Date.now();
    const answer = await show(url);
    assert.deepEqual(answer, { status: 200, body: OTHER_DESCRIPTION }, 'the next peer described it');
    assert.ok(Date.now() - startedMs >= bodyMs, 'the stalled body was waited on for its bound first');
    assert.equal((await stalls.asked).writableEnded, false, 'the stalled peer never finished its answer');
  });

  it('drops its call to the peer at once when the app hangs up while the body is still to come', { timeout: scaled(30_000) }, async () => {
    const { dispatcher, agent, headersIn } = headersWatchingDispatcher();
    open.push({ close: () => agent.close() });
    // Headers at once, and a body that never comes: only the app leaving can end the call before the body bound.
    const holds = await startPeer('holds', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
    });
    open.push(holds);
    const url = await frontFor([holds], dispatcher, {});
    const body = JSON.stringify({ model: MODEL });
    const app = httpRequest(`${url}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
    });
    const appGone = new Promise<void>((resolve) => app.on('error', () => resolve()).on('close', resolve));
    app.end(body);

    const held = await holds.asked;
    await headersIn;
    const peerSawClose = once(held, 'close');
    const hungUpAt = Date.now();
    app.destroy();
    await appGone;
    await peerSawClose;
    const waited = Date.now() - hungUpAt;
    assert.equal(held.writableEnded, false, 'the peer never sent its body: the call was dropped, not completed');
    assert.ok(
      waited < PEER_SHOW_BODY_TIMEOUT_MS / 3,
      `the call is dropped when the app hangs up, not at the ${PEER_SHOW_BODY_TIMEOUT_MS} ms body bound; it closed after ${waited} ms`,
    );
  });
});
