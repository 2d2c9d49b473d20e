/**
 * The walk's test harness: its dependencies with nothing listening, a local Ollama candidate, and
 * a loopback server standing for the app's end that runs one walk for each request it takes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from '../util/undici-lean.js';
import { pino } from 'pino';
import type { Candidate } from '../placement/types.js';
import { systemClock } from '../util/clock.js';
import { InFlight } from './in-flight.js';
import { walk } from './walk.js';
import { CallerLine } from './walk-caller.js';
import type { WalkDeps, WalkRequest, WalkSettled } from './walk-types.js';
import { ROUTED_ROUTES } from './route-table.js';
import { WithholdBook } from './withhold-book.js';

/**
 * A walk's dependencies with a fresh dispatcher, count and books, no rows kept, no peers and no
 * one told: override what the case watches. The caller closes `dispatcher`.
 */
export function walkDeps(overrides: Partial<WalkDeps> = {}): WalkDeps {
  return {
    dispatcher: new Agent(),
    rows: { update: () => {}, settle: () => {} },
    inFlight: new InFlight(),
    logger: pino({ level: 'silent' }),
    peerAuth: async () => 'no peers here',
    onPeerRefused: () => {},
    onEngineRefusal: () => {},
    outputFaults: new WithholdBook(systemClock),
    unservable: new WithholdBook(systemClock),
    onWithholdChange: () => {},
    observers: [],
    ...overrides,
  };
}

/** A local Ollama backend at `url` as a candidate, nothing queued on it. */
export function localCandidate(backendId: string, url: string): Candidate {
  return {
    id: `local/${backendId}`,
    node: 'local',
    backendId,
    engine: 'ollama',
    url,
    queueDepth: 0,
    loadReported: true,
    peerId: null,
    hardwareTier: null,
    pressure: 1,
  };
}

type Trace = NonNullable<WalkRequest['trace']>;

/** A request trace that records no spans and only hears how the request ended. */
export function endOnlyTrace(ended: (e: { status: number | null; outcome: string }) => void): Trace {
  return { traceId: null, attemptStarted: () => ({}), attemptEnded: () => {}, ended, setRequestId: () => {} } as unknown as Trace;
}

/**
 * What a case sets of one walk. The rest is the same for every walk here: not streamed, a 10 s
 * budget, no peer's row, no stall budget stated by a sender, no window known.
 */
export type WalkCall = Pick<WalkRequest, 'route' | 'model' | 'order'> &
  Partial<Pick<WalkRequest, 'stream' | 'budgetMs' | 'rowNode' | 'trace' | 'answerNoCandidate' | 'affinity'>>;

export interface WalkApp {
  /** Where the app's requests go, without a path. */
  readonly url: string;
  /** What walks threw (a proxy route answers those as errors); the app's connection is then cut. */
  readonly thrown: unknown[];
  close(): Promise<void>;
}

/** A loopback server standing for the app: each request it takes is read whole and goes through one walk over what `call` makes of it. */
export async function startWalkApp(deps: WalkDeps, call: (body: Buffer, req: IncomingMessage, res: ServerResponse) => WalkCall): Promise<WalkApp> {
  const thrown: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const c = call(body, req, res);
      walk(deps, {
        requestId: 'r',
        body,
        stream: false,
        budgetMs: 10_000,
        rowNode: null,
        senderStallMs: null,
        ...c,
        startedAt: performance.now(),
        accept: undefined,
        res,
        caller: new CallerLine(res),
        windowOf: () => null,
      }).catch((err: unknown) => {
        thrown.push(err);
        res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    thrown,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback engine that answers each request with `answer` once its body is in, counting what it was asked. */
export async function rawEngine(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; asked: () => number; close: () => Promise<void> }> {
  let asked = 0;
  const server = createServer((req, res) => {
    asked++;
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked: () => asked,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const NATIVE_CHAT = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;
/** The model noUserTurnThroughWalk asks for. */
export const NO_USER_TURN_MODEL = 'qwen3:8b';

/** What an app read from one request through a walk, and what the walk settled. */
export interface WalkAnswer {
  readonly status: number;
  readonly body: string;
  readonly settled: WalkSettled;
}

/**
 * One native chat whose only message is a system one (no user turn: a body every engine would
 * refuse the same way) through a walk over `order`, as an app on a loopback socket sends it.
 */
export async function noUserTurnThroughWalk(
  order: readonly Candidate[],
  opts: { readonly stream?: boolean; readonly deps?: Partial<WalkDeps> } = {},
): Promise<WalkAnswer> {
  const stream = opts.stream ?? false;
  let settle!: (s: WalkSettled) => void;
  const settled = new Promise<WalkSettled>((resolve) => (settle = resolve));
  const deps = walkDeps({ ...opts.deps, observers: [{ onSettled: (s) => settle(s) }] });
  const app = await startWalkApp(deps, () => ({ route: NATIVE_CHAT, model: NO_USER_TURN_MODEL, order, stream }));
  try {
    const body = JSON.stringify({ model: NO_USER_TURN_MODEL, stream, messages: [{ role: 'system', content: 'no user turn' }] });
    const res = await request(`${app.url}/api/chat`, { method: 'POST', body });
    return { status: res.statusCode, body: await res.body.text(), settled: await settled };
  } finally {
    await app.close();
    await deps.dispatcher.close();
  }
}
