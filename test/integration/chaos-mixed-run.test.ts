/**
 * A mixed run with faults and hang-ups (issue 15, item 3): two paired Hubs, each with simulated
 * engines, take a seeded mix of requests through A, in both dialects, streamed and not, served
 * locally or forwarded to B, while engine faults come and go and callers hang up before the
 * answer starts and part-way through it. Afterwards nothing is held anywhere (every in-flight
 * counter and queue depth on both Hubs, and every engine, at zero) and A's routing log accounts
 * for every request: one settled row for each request the Hub placed, none pending.
 *
 * `npm test` runs CHAOS_MIXED_REQUESTS (default 600) of them; `npm run test:chaos` runs 10,000.
 * CHAOS_SEED replays a run.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { request } from 'undici';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import type { SimFault } from '../../src/sim/types.js';
import { MAX_ROUTING_LOG_SIZE } from '../../src/config/env.js';
import { eventually } from '../helpers/hub-process.js';
import { type PoolHub, START_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { heldCounters } from '../helpers/chaos.js';
import { mulberry32 } from '../../src/llama/prng.js';
import { scaled } from '../helpers/time-scale.js';

const REQUESTS = Math.min(MAX_ROUTING_LOG_SIZE, Number(process.env.CHAOS_MIXED_REQUESTS ?? 600));
const SEED = Number(process.env.CHAOS_SEED ?? 15_003);
/** Requests open at once: enough to overlap faults and forwards, bounded for a two-core machine. */
const CONCURRENCY = 8;
/** How often (in requests started) a new engine fault is set. */
const FAULT_EVERY = 25;

const SHARED = 'mix:8b'; // on A and B
const A_ONLY = 'solo:8b'; // on A only
const B_ONLY = 'far:8b'; // on B only: always forwarded
const HOLD = 'hold:1b'; // on A's vLLM, whose engine never answers it: for hang-ups before the answer
const LONG = 'long:8b'; // on A and B, a long answer: a caller leaving after the first chunk leaves mid-answer

/** Short answers keep the run fast; the long one outlasts the first chunk by far. */
const SHORT_ANSWER = { answerTokens: 8 };
const models = (names: readonly string[]) => [...names.map((name) => ({ name, ...SHORT_ANSWER })), { name: LONG, decodeTps: 20, answerTokens: 2_000 }];

const POOL_API = '/api/inference/pool';

type Kind = 'openai' | 'openai-stream' | 'openai-stream-hangup' | 'ollama-stream' | 'forwarded' | 'hangup-before-answer' | 'unknown-model';
const KINDS: readonly { kind: Kind; weight: number }[] = [
  { kind: 'openai', weight: 25 },
  { kind: 'openai-stream', weight: 20 },
  { kind: 'openai-stream-hangup', weight: 10 },
  { kind: 'ollama-stream', weight: 15 },
  { kind: 'forwarded', weight: 20 },
  { kind: 'hangup-before-answer', weight: 5 },
  { kind: 'unknown-model', weight: 5 },
];

function pick<T extends { weight: number }>(items: readonly T[], r: number): T {
  const total = items.reduce((s, i) => s + i.weight, 0);
  let x = r * total;
  for (const i of items) {
    x -= i.weight;
    if (x < 0) return i;
  }
  return items[items.length - 1]!;
}

const FAULTS: readonly (SimFault & { weight: number })[] = [
  { mode: 'error', status: 503, count: 1, weight: 4 },
  { mode: 'error', status: 500, body: '{"error":"boom"}', count: 1, weight: 3 },
  { mode: 'slow-first-byte', delayMs: 2_000, count: 2, weight: 3 },
  { mode: 'cut', count: 1, weight: 1 },
  { mode: 'none', weight: 2 },
];

/** One at a time: a hang-up before the answer waits until the engine holds exactly its request. */
class Lock {
  #tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

interface Tally {
  /** Request ids the Hub answered with. */
  readonly ids: Set<string>;
  /** Requests answered without an id: refused before placement. */
  unplaced: number;
  /** Requests the caller left before any answer, each once the engine held it (so it was placed). */
  hungUpBeforeAnswer: number;
  readonly byKind: Record<string, number>;
}

async function readAll(body: AsyncIterable<unknown>): Promise<void> {
  try {
    for await (const chunk of body) void chunk;
  } catch {
    // A cut stream ends in an error on the caller's side; the test looks at the Hub, not at the text.
  }
}

describe('a mixed run with faults and hang-ups', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: {
      a: {
        ollama: { models: models([SHARED, A_ONLY]) },
        vllm: { models: [HOLD] },
        env: { HUB_POOL_ROUTING_LOG_SIZE: String(MAX_ROUTING_LOG_SIZE), HUB_POOL_FIRST_BYTE_TIMEOUT_MS: '5000' },
      },
      b: { ollama: { models: models([SHARED, B_ONLY]) } },
    },
    pairs: [['a', 'b']],
  });
  before(
    async () => {
      await pool().a.engines.vllm!.setFault({ mode: 'hang', model: HOLD });
    },
    { timeout: START_TIMEOUT_MS },
  );

  it(`ends ${REQUESTS} mixed requests with nothing held and every request in the routing log`, { timeout: scaled(30 * 60_000) }, async () => {
    const { a, b } = pool();
    const random = mulberry32(SEED); // the same seed replays the same mixed run
    const tally: Tally = { ids: new Set(), unplaced: 0, hungUpBeforeAnswer: 0, byKind: {} };
    const holdLock = new Lock();
    const openai = new OpenAI({ baseURL: `${a.pool}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
    const holdEngine = a.engines.vllm!;
    const faultEngines = [a.engines.ollama!, b.engines.ollama!];

    const note = (id: string | null | undefined) => {
      if (id) tally.ids.add(id);
      else tally.unplaced++;
    };

    const one = async (kind: Kind): Promise<void> => {
      tally.byKind[kind] = (tally.byKind[kind] ?? 0) + 1;
      switch (kind) {
        case 'openai':
        case 'forwarded':
        case 'unknown-model': {
          const model = kind === 'openai' ? SHARED : kind === 'forwarded' ? B_ONLY : 'nowhere:1b';
          const { response } = await openai.chat.completions
            .create({ model, messages: [{ role: 'user', content: 'hello' }] })
            .withResponse()
            .catch((err: { headers?: Headers }) => ({ response: { headers: err.headers ?? new Headers() } }));
          note(response.headers.get('x-hub-pool-request-id'));
          return;
        }
        case 'openai-stream':
        case 'openai-stream-hangup': {
          const abort = new AbortController();
          try {
            const { data, response } = await openai.chat.completions
              .create(
                { model: kind === 'openai-stream' ? SHARED : LONG, stream: true, messages: [{ role: 'user', content: 'stream please' }] },
                { signal: abort.signal },
              )
              .withResponse();
            note(response.headers.get('x-hub-pool-request-id'));
            if (kind === 'openai-stream-hangup') {
              // Leave after the first chunk: the Hub must stop the engine and settle the row.
              for await (const chunk of data) {
                void chunk;
                break;
              }
              abort.abort();
            } else {
              await readAll(data);
            }
          } catch (err) {
            note((err as { headers?: Headers }).headers?.get('x-hub-pool-request-id'));
          }
          return;
        }
        case 'ollama-stream': {
          // The ollama client does not hand back headers; the raw call does, with the same body.
          const res = await request(`${a.pool}/api/chat`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: A_ONLY, stream: true, messages: [{ role: 'user', content: 'hello' }] }),
          });
          note(res.headers['x-hub-pool-request-id'] as string | undefined);
          await readAll(res.body);
          return;
        }
        case 'hangup-before-answer':
          return holdLock.run(async () => {
            const before = holdEngine.state().hanging;
            assert.equal(before, 0, 'no earlier held request is left on the engine');
            const abort = new AbortController();
            const pending = request(`${a.pool}/v1/chat/completions`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ model: HOLD, messages: [{ role: 'user', content: 'hold' }] }),
              signal: abort.signal,
            }).catch(() => null);
            await eventually(() => holdEngine.state().hanging === 1, 'the engine to hold the request');
            abort.abort();
            await pending;
            tally.hungUpBeforeAnswer++;
            await eventually(() => holdEngine.state().hanging === 0, 'the engine to let the request go');
          });
      }
    };

    let started = 0;
    const worker = async (): Promise<void> => {
      while (started < REQUESTS) {
        const n = started++;
        if (n % FAULT_EVERY === 0) {
          const engine = faultEngines[Math.floor(random() * faultEngines.length)]!;
          const { weight, ...fault } = pick(FAULTS, random());
          void weight;
          await engine.setFault({ ...fault, model: random() < 0.5 ? SHARED : engine === faultEngines[0] ? A_ONLY : B_ONLY });
        }
        await one(pick(KINDS, random()).kind);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await Promise.all(faultEngines.map((e) => e.clearFaults()));

    // Nothing held: every counter on both Hubs and every engine back at zero, with no one acting.
    for (const hub of [a, b] as PoolHub[]) {
      const held = await eventually(async () => {
        const h = heldCounters(await hub.status());
        return h.length === 0 ? h : null;
      }, `${hub.name} to hold nothing`).catch(async () => heldCounters(await hub.status()));
      assert.deepEqual(held, [], `${hub.name} still holds: ${held.join(', ')}`);
    }
    for (const engine of [...faultEngines, holdEngine]) {
      await eventually(() => engine.state().inFlight === 0 && engine.state().hanging === 0, 'every engine to be idle');
    }

    // The routing log accounts for every request: one settled row per placed request, none pending.
    const rows = await eventually(async () => {
      const page = await a.api<RoutingLogPage>('GET', `${POOL_API}/routing-log?limit=${MAX_ROUTING_LOG_SIZE}`);
      assert.equal(page.status, 200);
      return page.json.entries.every((e) => e.outcome !== 'pending') ? page.json.entries : null;
    }, 'every routing-log row to settle').catch(async () => {
      const page = await a.api<RoutingLogPage>('GET', `${POOL_API}/routing-log?limit=${MAX_ROUTING_LOG_SIZE}`);
      return page.json.entries;
    });
    const pending = rows.filter((e) => e.outcome === 'pending');
    assert.deepEqual(
      pending.map((e) => e.id),
      [],
      'no row is left pending',
    );
    const byId = new Map<string, RoutingLogEntry>(rows.map((e) => [e.id, e]));
    const missing = [...tally.ids].filter((id) => !byId.has(id));
    assert.deepEqual(missing, [], 'every request id a caller was given has its row');
    assert.equal(rows.length, tally.ids.size + tally.hungUpBeforeAnswer, `rows for exactly the placed requests (${JSON.stringify(tally)})`);
    const leftEarly = rows.filter((e) => e.model === HOLD);
    assert.equal(leftEarly.length, tally.hungUpBeforeAnswer);
    for (const e of leftEarly) assert.equal(e.clientClosed, true, `row ${e.id} says the caller left`);
    // The run did what it says: callers left before and during answers, and B served forwards.
    assert.ok(
      rows.some((e) => e.clientClosed && e.model === LONG),
      'some callers left mid-answer',
    );
    assert.ok(
      rows.some((e) => e.outcome === 'served' && e.node === b.name),
      'B served forwarded requests',
    );
    assert.equal(tally.ids.size + tally.unplaced + tally.hungUpBeforeAnswer, REQUESTS, 'every request is counted once');
  });
});
