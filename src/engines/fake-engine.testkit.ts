/**
 * Test-only: a tiny loopback HTTP server standing in for an engine, for the engine tests
 * beside it. Each request's answer comes from a handler that may take its time (return a
 * promise the test settles later), so tests can hold an engine silent and release it on cue.
 * It records what it was asked and which requests the caller gave up on.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import { Agent } from '../util/undici-lean.js';
import { scaled } from '../../test/helpers/time-scale.js';

export interface FakeReply {
  readonly status?: number;
  /** Sent as JSON. */
  readonly json?: unknown;
  /** Sent as is, instead of json. */
  readonly text?: string;
}

export type FakeHandler = (path: string, hit: number) => FakeReply | Promise<FakeReply>;

export interface FakeEngine {
  readonly url: string;
  /** Paths asked so far, in order. */
  readonly paths: readonly string[];
  /** Requests answered in full. */
  answered(): number;
  /** Requests whose connection closed before an answer went out: the caller aborted them. */
  abandoned(): number;
  /** Replaces the handler for later requests. */
  setHandler(handler: FakeHandler): void;
  close(): Promise<void>;
}

export async function startFakeEngine(handler: FakeHandler): Promise<FakeEngine> {
  const paths: string[] = [];
  let current = handler;
  let answered = 0;
  let abandoned = 0;
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    paths.push(path);
    res.on('close', () => {
      if (!res.writableFinished) abandoned += 1;
    });
    void Promise.resolve(current(path, paths.length)).then((reply) => {
      if (res.destroyed) return;
      const body = reply.text ?? JSON.stringify(reply.json ?? {});
      res.writeHead(reply.status ?? 200, { 'content-type': reply.text === undefined ? 'application/json' : 'text/plain' });
      res.end(body, () => {
        answered += 1;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    answered: () => answered,
    abandoned: () => abandoned,
    setHandler: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A promise settled from outside, for holding an engine silent until the test releases it. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A promise that never settles: an engine that accepted the connection and never answers. */
export const NEVER: Promise<FakeReply> = new Promise<FakeReply>(() => {});

/** The least time `until` waits before it gives up, ms (before scaling). */
const UNTIL_FLOOR_MS = 10_000;

/** Polls until `check` holds, or fails after `timeoutMs` (at least UNTIL_FLOOR_MS, scaled). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 1000, what = 'condition'): Promise<void> {
  // A bound, not a target: the check ends the wait as soon as it holds, so the deadline is
  // floored well above what a loaded machine needs and stretched by HUB_TEST_TIME_SCALE.
  const deadline = Date.now() + scaled(Math.max(timeoutMs, UNTIL_FLOOR_MS));
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** An Ollama /api/tags body listing the given models. */
export function ollamaTags(...names: string[]): FakeReply {
  return { json: { models: names.map((name) => ({ name, model: name, size: 1000, details: { parameter_size: '8B' } })) } };
}

/**
 * Whether `promise` has settled once the current turn of the event loop is over. A read that
 * waits on nothing (no probe, no budget) settles within it; one waiting on a socket or on a
 * ManualClock nobody advanced does not.
 */
export async function settlesWithinATurn(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

/**
 * An undici Agent that counts the requests it was handed and the exchanges the code under test
 * is done with: the response read to its end, or dropped (an error status's body is discarded).
 * Either is an I/O callback, and what the reader does with the answer (parse it, store it) has
 * run by the end of that callback's promise jobs, so a poll (a later timer) that sees the count
 * sees the answer stored: the event to wait on, not the fake engine's write.
 */
export class WatchedAgent extends Agent {
  #dispatched = 0;
  #finished = 0;
  /** Called as each answer ends, inside the dispatcher's own callback: before the caller sees the answer. */
  onFinished: (() => void) | null = null;

  dispatched(): number {
    return this.#dispatched;
  }

  finished(): number {
    return this.#finished;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.#dispatched += 1;
    const ends = new Set<string | symbol>(['onComplete', 'onError', 'onResponseEnd', 'onResponseError']);
    const counted = new Proxy(handler, {
      get: (target, key) => {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== 'function') return value;
        const method = value as (...a: unknown[]) => unknown;
        if (!ends.has(key)) return method.bind(target);
        return (...args: unknown[]) => {
          try {
            return method.apply(target, args);
          } finally {
            this.#finished += 1;
            this.onFinished?.();
          }
        };
      },
    });
    return super.dispatch(opts, counted);
  }
}
