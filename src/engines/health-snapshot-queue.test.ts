/**
 * What an engine says about its own queue rides on the health snapshot's reads: asked in the
 * background at most once per QUEUE_REPORT_REFRESH_MS, never waited for, and read as null
 * (not zero) when it failed, was never asked, or is older than QUEUE_REPORT_MAX_AGE_MS.
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { pino } from 'pino';
import type { EngineEndpoint } from '../config/env.js';
import { Background } from '../util/background.js';
import { CLOCK_STEP_TOLERANCE_MS, ManualClock } from '../util/clock.js';
import { scaled } from '../../test/helpers/time-scale.js';
import { deferred, NEVER, settlesWithinATurn, startFakeEngine, until, WatchedAgent, type FakeEngine, type FakeReply } from './fake-engine.testkit.js';
import { readEngineQueue, QUEUE_REPORT_TIMEOUT_MS, VLLM_METRICS_MAX_BYTES } from './engine-queue-reader.js';
import { VLLM_V1_METRICS } from './engine-queue-shapes.fixture.js';
import { BackendHealth, QUEUE_REPORT_MAX_AGE_MS, QUEUE_REPORT_REFRESH_MS } from './health-snapshot.js';

/** Bounds a test whose read waits on something it must not (a report, a budget on the ManualClock). */
const SUITE_TIMEOUT_MS = scaled(60_000);

const MODELS = { json: { object: 'list', data: [{ id: 'Qwen/Qwen3-8B', object: 'model', owned_by: 'vllm' }] } };

interface Rig {
  readonly health: BackendHealth;
  readonly clock: ManualClock;
  readonly engine: FakeEngine;
  /** The BackendHealth's dispatcher: counts the probes and reports sent and those it is done with. */
  readonly dispatcher: WatchedAgent;
  own: number;
  metricsAsked(): number;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

/** One BackendHealth over a fake vLLM whose /metrics answer comes from `metrics`, reading queues with the Hub's reader. */
async function rig(metrics: (hit: number) => FakeReply | Promise<FakeReply>, ttl = 0): Promise<Rig> {
  let asked = 0;
  const engine = await startFakeEngine((path) => {
    if (path === '/metrics') return metrics(++asked);
    return MODELS;
  });
  const endpoints: EngineEndpoint[] = [{ id: 'vllm-1', kind: 'vllm', url: engine.url }];
  const dispatcher = new WatchedAgent();
  const clock = new ManualClock();
  const state = { own: 0 };
  const health = new BackendHealth({
    endpoints,
    dispatcher,
    clock,
    timer: clock,
    ttlMs: () => ttl,
    background: new Background({ logger: pino({ level: 'silent' }), clock }),
    logger: pino({ level: 'silent' }),
    readQueue: (e, d, signal) => readEngineQueue(e.kind, e.url, d, signal),
    ownInFlight: () => state.own,
  });
  cleanups.push(async () => {
    health.close();
    await engine.close();
    await dispatcher.destroy();
  });
  return Object.assign(state, { health, clock, engine, dispatcher, metricsAsked: () => asked });
}

const queueOf = (views: Awaited<ReturnType<BackendHealth['read']>>) => views[0]?.engineQueue ?? null;

/**
 * Waits until the BackendHealth is done with `exchanges` probes and reports in all, so the report
 * in flight has landed: the next view carries it (or stays null after a failure).
 */
async function landed(r: Rig, exchanges: number): Promise<void> {
  await until(() => r.dispatcher.finished() >= exchanges, 2000, 'the queue report to land');
}

describe('queue reports in the health snapshot', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('reads the report in the background: the first read goes without it, the next one has it', async () => {
    const held = deferred<FakeReply>();
    const r = await rig(() => held.promise);
    const first = await r.health.read();
    assert.equal(queueOf(first), null, 'not reported yet is null, not zero');
    assert.equal(first[0]?.healthy, true, 'the read did not wait for the report');
    r.own = 1;
    held.resolve({ text: VLLM_V1_METRICS });
    await landed(r, 2);
    assert.deepEqual(queueOf(await r.health.read()), { running: 1, waiting: 3, slots: null, ownInFlightAtReport: 1, reportedMsAgo: 0 });
  });

  it('never makes a read wait for a silent /metrics', async () => {
    // With a TTL the probe answer stays fresh, so a read that waits on nothing is done at once.
    const r = await rig(() => NEVER, 60_000);
    await r.health.read();
    await until(() => r.metricsAsked() === 1, 2000, 'the report to be asked');
    r.clock.advance(QUEUE_REPORT_REFRESH_MS); // another report is due, but one is in flight
    for (let i = 0; i < 2; i++) {
      const read = r.health.read();
      assert.equal(await settlesWithinATurn(read), true, `read ${i + 2} waited for the silent report`);
      await read;
    }
    // A report started behind those reads would have been handed to the dispatcher by now.
    assert.deepEqual([r.dispatcher.dispatched(), r.metricsAsked()], [2, 1], 'one probe and one report in flight at a time');
  });

  it("starts a read's report only after the reading request's own callback is done, so its write comes first", async () => {
    const r = await rig(() => ({ text: VLLM_V1_METRICS }));
    const started: string[] = [];
    const dispatcher = new Agent();
    const health = new BackendHealth({
      endpoints: [{ id: 'vllm-1', kind: 'vllm', url: r.engine.url }],
      dispatcher,
      clock: r.clock,
      ttlMs: () => 60_000,
      background: new Background({ logger: pino({ level: 'silent' }), clock: r.clock }),
      logger: pino({ level: 'silent' }),
      readQueue: () => {
        started.push('queue report');
        return Promise.resolve(null);
      },
    });
    cleanups.push(async () => {
      health.close();
      await dispatcher.destroy();
    });
    // The first read is cold and waits for the probe, so its report starts while it waits.
    await health.read();
    await new Promise((resolve) => setImmediate(resolve));
    started.length = 0;
    r.clock.advance(QUEUE_REPORT_REFRESH_MS);
    await health.read();
    // What the request does with its views within the same callback (placement, its upstream write).
    started.push('request');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, ['request', 'queue report']);
  });

  it('asks again only once QUEUE_REPORT_REFRESH_MS has passed, however many reads come', async () => {
    const r = await rig(() => ({ text: VLLM_V1_METRICS }));
    await r.health.read();
    await landed(r, 2);
    for (let i = 0; i < 5; i++) await r.health.read();
    r.clock.advance(QUEUE_REPORT_REFRESH_MS - 1);
    await r.health.read();
    assert.equal(r.metricsAsked(), 1);
    r.clock.advance(1);
    await r.health.read();
    await until(() => r.metricsAsked() === 2, 2000, 'the second report');
  });

  it('status looks (latest) keep the report fresh too', async () => {
    const r = await rig(() => ({ text: VLLM_V1_METRICS }));
    r.health.latest();
    await landed(r, 2);
    assert.deepEqual(queueOf(r.health.latest()), { running: 1, waiting: 3, slots: null, ownInFlightAtReport: 0, reportedMsAgo: 0 });
  });

  it('the idle tick asks for a due report with nothing reading, and for none that is not due', async () => {
    const r = await rig((hit) => ({ text: hit === 1 ? VLLM_V1_METRICS : 'vllm:num_requests_running 0\nvllm:num_requests_waiting 0\n' }));
    r.health.refreshQueueReports();
    await landed(r, 1);
    r.health.refreshQueueReports();
    assert.equal(r.metricsAsked(), 1, 'not due yet');
    r.clock.advance(QUEUE_REPORT_REFRESH_MS);
    r.health.refreshQueueReports();
    await landed(r, 2);
    assert.deepEqual(
      [queueOf(r.health.latest())?.running, queueOf(r.health.latest())?.waiting],
      [0, 0],
      'the clients that were waiting are gone from the next report',
    );
  });

  it('reads a report older than QUEUE_REPORT_MAX_AGE_MS as null', async () => {
    const later = deferred<FakeReply>();
    const r = await rig((hit) => (hit === 1 ? { text: VLLM_V1_METRICS } : later.promise));
    await r.health.read();
    await landed(r, 2);
    r.clock.advance(QUEUE_REPORT_MAX_AGE_MS);
    assert.equal(queueOf(r.health.latest())?.reportedMsAgo, QUEUE_REPORT_MAX_AGE_MS, 'still read at the limit');
    r.clock.advance(1);
    assert.equal(queueOf(r.health.latest()), null);
  });

  it('forgets the last report when the next one fails: "did not say", not the old figure', async () => {
    const r = await rig((hit) => (hit === 1 ? { text: VLLM_V1_METRICS } : { status: 500, text: 'boom' }));
    await r.health.read();
    await landed(r, 2);
    assert.notEqual(queueOf(await r.health.read()), null);
    r.clock.advance(QUEUE_REPORT_REFRESH_MS);
    await r.health.read();
    await landed(r, 4);
    assert.equal(queueOf(await r.health.read()), null);
  });
});

describe("the engine's queue reader, over hostile answers", () => {
  const dispatcher = new Agent();
  const signal = new AbortController().signal;
  afterEach(async () => {
    for (const clean of cleanups.splice(0)) await clean();
  });

  const rows: { name: string; reply: FakeReply }[] = [
    { name: 'an error status', reply: { status: 404, json: { detail: 'Not Found' } } },
    { name: 'garbage text', reply: { text: '\u0000\u0001 not metrics at all' } },
    { name: 'JSON', reply: { json: { running: 5 } } },
    { name: `a body past ${VLLM_METRICS_MAX_BYTES} bytes`, reply: { text: `${'#'.repeat(VLLM_METRICS_MAX_BYTES)}\nvllm:num_requests_waiting 3\n` } },
  ];
  for (const row of rows) {
    it(`reads ${row.name} as not reported`, async () => {
      const engine = await startFakeEngine(() => row.reply);
      cleanups.push(() => engine.close());
      assert.equal(await readEngineQueue('vllm', engine.url, dispatcher, signal), null);
    });
  }

  it(`gives up on an engine that never answers after ${QUEUE_REPORT_TIMEOUT_MS} ms and reads it as not reported`, async () => {
    const engine = await startFakeEngine(() => NEVER);
    cleanups.push(() => engine.close());
    assert.equal(await readEngineQueue('llamacpp', engine.url, dispatcher, signal), null);
    await until(() => engine.abandoned() === 1, 2000, 'the connection to be dropped');
  });

  it('reads nothing from a port nobody listens on, without throwing', async () => {
    assert.equal(await readEngineQueue('vllm', 'http://127.0.0.1:1', dispatcher, signal), null);
  });
});

describe('queue reports after the wall clock is set back', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('asks for the next report at once, rather than once the clock is back where the last one was asked', async () => {
    const r = await rig(() => ({ text: VLLM_V1_METRICS }));
    await r.health.read();
    await landed(r, 2);
    r.clock.advance(-60_000);
    r.health.refreshQueueReports();
    await until(() => r.metricsAsked() === 2, 2000, 'a report asked after the step');
  });

  it('reads a report stamped ahead of the clock as null, not as 0 ms old', async () => {
    const later = deferred<FakeReply>();
    const r = await rig((hit) => (hit === 1 ? { text: VLLM_V1_METRICS } : later.promise));
    await r.health.read();
    await landed(r, 2);
    assert.notEqual(queueOf(r.health.latest()), null);
    r.clock.advance(-60_000);
    assert.equal(queueOf(r.health.latest()), null);
  });

  it('reads a report stamped up to a second ahead as 0 ms old, never a negative age', async () => {
    const later = deferred<FakeReply>();
    const r = await rig((hit) => (hit === 1 ? { text: VLLM_V1_METRICS } : later.promise));
    await r.health.read();
    await landed(r, 2);
    r.clock.advance(-CLOCK_STEP_TOLERANCE_MS);
    assert.equal(queueOf(r.health.latest())?.reportedMsAgo, 0);
  });
});
