import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, type Dispatcher } from 'undici';
import type { EngineEndpoint } from '../config/env.js';
import { pino } from 'pino';
import { Background } from '../util/background.js';
import { ManualClock } from '../util/clock.js';
import { deferred, NEVER, ollamaTags, startFakeEngine, until, type FakeEngine, type FakeReply } from './fake-engine.testkit.js';
import { BackendHealth, INVENTORY_CACHE_MS, LIVE_PROBE_REUSE_MS, PLACEMENT_BUDGET_MS, STALE_GRACE_MS } from './health-snapshot.js';
import { PROBE_TRANSPORT_TIMEOUT_MS } from './probe-fetch.js';

const TTL = 10_000;

interface Rig {
  readonly health: BackendHealth;
  readonly clock: ManualClock;
  readonly engines: FakeEngine[];
  ttl: number;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

/** One BackendHealth over fake Ollama engines, each with its own handler. */
async function rig(ttl: number, ...handlers: ((path: string, hit: number) => FakeReply | Promise<FakeReply>)[]): Promise<Rig> {
  const engines = await Promise.all(handlers.map((h) => startFakeEngine(h)));
  const endpoints: EngineEndpoint[] = engines.map((e, i) => ({ id: `ollama-${i + 1}`, kind: 'ollama', url: e.url }));
  const dispatcher = new Agent();
  const clock = new ManualClock();
  const state: { ttl: number } = { ttl };
  const health = new BackendHealth({
    endpoints,
    dispatcher,
    clock,
    ttlMs: () => state.ttl,
    background: new Background({ logger: pino({ level: 'silent' }), clock }),
  });
  cleanups.push(async () => {
    health.close();
    await Promise.all(engines.map((e) => e.close()));
    await dispatcher.destroy();
  });
  return Object.assign(state, { health, clock, engines });
}

const modelsOf = (views: Awaited<ReturnType<BackendHealth['read']>>, i = 0) => views[i]?.models.map((m) => m.name);

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await run();
  return { value, ms: performance.now() - start };
}

describe('BackendHealth with TTL 0 (the default)', () => {
  it('probes every engine on every read and returns what it just heard', async () => {
    const r = await rig(0, (_path, hit) => ollamaTags(hit === 1 ? 'qwen3:8b' : 'llama3.2:3b'));
    assert.deepEqual(modelsOf(await r.health.read()), ['qwen3:8b']);
    r.clock.advance(LIVE_PROBE_REUSE_MS);
    assert.deepEqual(modelsOf(await r.health.read()), ['llama3.2:3b']);
    assert.deepEqual(r.engines[0]?.paths, ['/api/tags', '/api/tags']);
  });

  it('uses an answer that landed under 2 ms ago as the live probe, and probes again once it is 2 ms old', async () => {
    const r = await rig(0, (_path, hit) => ollamaTags(hit === 1 ? 'qwen3:8b' : 'llama3.2:3b'));
    assert.deepEqual(modelsOf(await r.health.read()), ['qwen3:8b']);
    r.clock.advance(LIVE_PROBE_REUSE_MS - 1);
    assert.deepEqual(modelsOf(await r.health.read()), ['qwen3:8b']);
    assert.equal(r.engines[0]?.paths.length, 1, 'the answer just heard served the second read');
    r.clock.advance(1);
    assert.deepEqual(modelsOf(await r.health.read()), ['llama3.2:3b']);
    assert.equal(r.engines[0]?.paths.length, 2);
  });

  it('never reuses an answer the proxy dropped (a quarantine it recorded), however recent', async () => {
    const r = await rig(0, (_path, hit) => ollamaTags(hit === 1 ? 'qwen3:8b' : 'llama3.2:3b'));
    await r.health.read();
    r.health.drop('ollama-1');
    assert.deepEqual(modelsOf(await r.health.read()), ['llama3.2:3b']);
    assert.equal(r.engines[0]?.paths.length, 2);
  });

  it('shares one probe between reads that overlap', async () => {
    const held = deferred<FakeReply>();
    const r = await rig(0, () => held.promise);
    const reads = Promise.all([r.health.read(), r.health.read(), r.health.read()]);
    await until(() => r.engines[0]!.paths.length === 1, 1000, 'the probe to arrive');
    held.resolve(ollamaTags('qwen3:8b'));
    const views = await reads;
    assert.deepEqual(
      views.map((v) => modelsOf(v)),
      [['qwen3:8b'], ['qwen3:8b'], ['qwen3:8b']],
    );
    assert.equal(r.engines[0]?.paths.length, 1);
  });
});

describe('BackendHealth with a TTL', () => {
  it('serves a fresh answer without probing', async () => {
    const r = await rig(TTL, () => ollamaTags('qwen3:8b'));
    await r.health.read();
    r.clock.advance(TTL - 1);
    const views = await r.health.read();
    assert.deepEqual(modelsOf(views), ['qwen3:8b']);
    assert.equal(views[0]?.probedMsAgo, TTL - 1);
    // Give a background probe, had one been started, the time to reach the engine.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(r.engines[0]?.paths.length, 1);
  });

  it('hands out views that never change under their reader, with the age as of each read', async () => {
    const r = await rig(TTL, () => ollamaTags('qwen3:8b'));
    const first = await r.health.read();
    const again = await r.health.read();
    assert.deepEqual(again, first);
    r.clock.advance(7);
    const later = await r.health.read();
    assert.deepEqual([first[0]?.probedMsAgo, later[0]?.probedMsAgo], [0, 7]);
    assert.deepEqual(modelsOf(later), ['qwen3:8b']);
    assert.ok(Object.isFrozen(first[0]) && Object.isFrozen(later[0]));
    r.clock.advance(-20); // a wall clock stepped back never gives a negative age
    assert.equal((await r.health.read())[0]?.probedMsAgo, 0);
  });

  it('after drop(), says "not probed yet" rather than the view it built before', async () => {
    const r = await rig(TTL, (_path, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    const before = await r.health.read();
    r.health.drop('ollama-1');
    const dropped = r.health.latest(); // starts a probe in the background, answers at once
    assert.deepEqual([dropped[0]?.running, dropped[0]?.error, dropped[0]?.probedMsAgo, modelsOf(dropped)], [false, 'not probed yet', null, []]);
    assert.deepEqual(modelsOf(before), ['old:8b']);
    await until(() => r.engines[0]!.answered() === 2, 1000, 'the background probe');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(modelsOf(r.health.latest()), ['new:8b']);
  });

  it('serves a stale answer at once and refreshes behind it; the next read sees the new answer', async () => {
    const refresh = deferred<FakeReply>();
    const r = await rig(TTL, (_path, hit) => (hit === 1 ? ollamaTags('old:8b') : refresh.promise));
    await r.health.read();
    r.clock.advance(TTL);
    const stale = await timed(() => r.health.read());
    assert.deepEqual(modelsOf(stale.value), ['old:8b']);
    assert.equal(stale.value[0]?.probedMsAgo, TTL);
    // Waiting for the held refresh would take the whole placement budget.
    assert.ok(stale.ms < PLACEMENT_BUDGET_MS - 50, `a stale read must not wait for its refresh (took ${stale.ms} ms)`);
    await until(() => r.engines[0]!.paths.length === 2, 1000, 'the background refresh');
    refresh.resolve(ollamaTags('new:8b'));
    await until(() => r.engines[0]!.answered() === 2, 1000, 'the refresh to be answered');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = await r.health.read();
    assert.deepEqual(modelsOf(after), ['new:8b']);
    assert.equal(after[0]?.probedMsAgo, 0);
    assert.equal(r.engines[0]?.paths.length, 2, 'one refresh, not one per read');
  });

  it("starts a stale answer's refresh only after the reading request's own callback is done, so its write comes first", async () => {
    const engine = await startFakeEngine(() => ollamaTags('old:8b'));
    const started: string[] = [];
    // Records each request as undici is handed it, which is when its socket write is set going.
    const dispatcher = new (class extends Agent {
      override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        started.push('probe');
        return super.dispatch(opts, handler);
      }
    })();
    const clock = new ManualClock();
    const health = new BackendHealth({
      endpoints: [{ id: 'ollama-1', kind: 'ollama', url: engine.url }],
      dispatcher,
      clock,
      ttlMs: () => TTL,
      background: new Background({ logger: pino({ level: 'silent' }), clock }),
    });
    cleanups.push(async () => {
      health.close();
      await engine.close();
      await dispatcher.destroy();
    });
    await health.read();
    clock.advance(TTL);
    started.length = 0;
    assert.deepEqual(modelsOf(await health.read()), ['old:8b'], 'the stale answer, at once');
    // What the request does with its views within the same callback (placement, its upstream write).
    started.push('request');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, ['request', 'probe']);
  });

  it('treats an answer older than the TTL plus the 60 s grace as cold: the read waits for a new probe', async () => {
    const r = await rig(TTL, (_path, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    await r.health.read();
    r.clock.advance(TTL + STALE_GRACE_MS);
    assert.deepEqual(modelsOf(await r.health.read()), ['new:8b']);
    assert.equal(r.engines[0]?.paths.length, 2);
  });

  it('on a cold read, waits for a quick engine and returns its answer', async () => {
    const r = await rig(TTL, () => ollamaTags('qwen3:8b'));
    const views = await r.health.read();
    assert.deepEqual([views[0]?.running, views[0]?.healthy, modelsOf(views)], [true, true, ['qwen3:8b']]);
  });

  it('on a cold read, gives silent engines one shared 500 ms budget, and the next read does not wait once the probes landed', async () => {
    const first = deferred<FakeReply>();
    const second = deferred<FakeReply>();
    // Each engine answers its first probe only when released; any later probe would hang.
    const r = await rig(
      TTL,
      (_p, hit) => (hit === 1 ? first.promise : NEVER),
      (_p, hit) => (hit === 1 ? second.promise : NEVER),
    );
    const cold = await timed(() => r.health.read());
    assert.ok(cold.ms >= PLACEMENT_BUDGET_MS - 100, `waited only ${cold.ms} ms`);
    assert.ok(cold.ms < 2 * PLACEMENT_BUDGET_MS, `the budget is shared, not per engine (took ${cold.ms} ms)`);
    assert.ok(cold.ms < PROBE_TRANSPORT_TIMEOUT_MS / 2);
    for (const view of cold.value) {
      assert.equal(view.running, false);
      assert.equal(view.healthy, false);
      assert.match(view.error ?? '', /no answer within the 500 ms placement budget/);
      assert.equal(view.probedMsAgo, null);
    }

    first.resolve(ollamaTags('qwen3:8b'));
    second.resolve({ status: 500, text: 'boom' });
    await until(() => r.engines.every((e) => e.answered() === 1), 1000, 'both probes to land');
    await new Promise((resolve) => setTimeout(resolve, 20));

    const next = await timed(() => r.health.read());
    assert.ok(next.ms < PLACEMENT_BUDGET_MS - 50, `the next read waited ${next.ms} ms`);
    assert.deepEqual([next.value[0]?.running, next.value[0]?.healthy, modelsOf(next.value)], [true, true, ['qwen3:8b']]);
    assert.deepEqual([next.value[1]?.running, next.value[1]?.healthy, next.value[1]?.error], [true, false, 'HTTP 500']);
    assert.deepEqual(
      r.engines.map((e) => e.paths.length),
      [1, 1],
      'no engine was probed again',
    );
  });

  it('while a cold probe is still in flight after one read spent its budget, later reads do not wait the budget again', async () => {
    const held = deferred<FakeReply>();
    const r = await rig(TTL, (_p, hit) => (hit === 1 ? held.promise : NEVER));
    const first = await timed(() => r.health.read());
    assert.ok(first.ms >= PLACEMENT_BUDGET_MS - 100, `the first read waited the budget (${first.ms} ms)`);
    for (let i = 0; i < 3; i++) {
      const later = await timed(() => r.health.read());
      assert.ok(later.ms < PLACEMENT_BUDGET_MS / 2, `read ${i + 2} waited ${later.ms} ms for a probe already waited out`);
      assert.match(later.value[0]?.error ?? '', /no answer within the 500 ms placement budget/);
    }
    assert.equal(r.engines[0]!.paths.length, 1, 'the probe in flight is shared, not restarted');
    held.resolve(ollamaTags('qwen3:8b'));
    await until(() => r.engines[0]!.answered() === 1, 1000, 'the probe to land');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(modelsOf(await r.health.read()), ['qwen3:8b']);
  });

  it('shares one probe between overlapping cold reads', async () => {
    const held = deferred<FakeReply>();
    const r = await rig(TTL, () => held.promise);
    const reads = Promise.all([r.health.read(), r.health.read()]);
    await until(() => r.engines[0]!.paths.length === 1, 1000, 'the probe to arrive');
    held.resolve(ollamaTags('qwen3:8b'));
    const views = await reads;
    assert.deepEqual(
      views.map((v) => modelsOf(v)),
      [['qwen3:8b'], ['qwen3:8b']],
    );
    assert.equal(r.engines[0]?.paths.length, 1);
  });

  it('re-probes an engine on the next read after drop()', async () => {
    const r = await rig(TTL, (_path, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    await r.health.read();
    await r.health.read();
    assert.equal(r.engines[0]?.paths.length, 1);
    r.health.drop('ollama-1');
    assert.deepEqual(modelsOf(await r.health.read()), ['new:8b']);
    assert.equal(r.engines[0]?.paths.length, 2);
  });

  it('ignores drop() for an engine it does not know', async () => {
    const r = await rig(TTL, () => ollamaTags('qwen3:8b'));
    await r.health.read();
    r.health.drop('vllm');
    await r.health.read();
    assert.equal(r.engines[0]?.paths.length, 1);
  });

  it('reads the TTL on every call, so a changed setting applies to the next read', async () => {
    const r = await rig(TTL, () => ollamaTags('qwen3:8b'));
    await r.health.read();
    await r.health.read();
    assert.equal(r.engines[0]?.paths.length, 1);
    r.ttl = 0;
    r.clock.advance(LIVE_PROBE_REUSE_MS);
    await r.health.read();
    assert.equal(r.engines[0]?.paths.length, 2);
  });
});

describe('BackendHealth.latest', () => {
  it('never waits: says "not probed yet" before the first answer and refreshes in the background', async () => {
    const r = await rig(TTL, () => ollamaTags('qwen3:8b'));
    const first = r.health.latest();
    assert.deepEqual([first[0]?.running, first[0]?.error, first[0]?.probedMsAgo], [false, 'not probed yet', null]);
    await until(() => r.engines[0]!.answered() === 1, 1000, 'the background probe');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(modelsOf(r.health.latest()), ['qwen3:8b']);
  });
});

describe('BackendHealth.snapshot(), what the listings read (issue 10 audit)', () => {
  it("at the default TTL 0, answers while a silent engine's probe is still pending, and never starts or waits for another", async () => {
    const held = deferred<FakeReply>();
    const r = await rig(
      0,
      () => ollamaTags('qwen3:8b'),
      (_p, hit) => (hit === 1 ? held.promise : NEVER),
    );
    const first = await r.health.snapshot();
    assert.equal(r.engines[1]!.answered(), 0, 'the listing answered before the silent engine did');
    assert.deepEqual([modelsOf(first, 0), first[1]?.healthy], [['qwen3:8b'], false]);
    const again = await r.health.snapshot();
    assert.equal(r.engines[1]!.answered(), 0);
    assert.deepEqual([modelsOf(again, 0), again[1]?.healthy], [['qwen3:8b'], false]);
    assert.deepEqual(
      r.engines.map((e) => e.paths.length),
      [1, 1],
      'one probe each: a listing is no live probe',
    );
    held.resolve(ollamaTags('late:8b'));
    await until(() => r.engines[1]!.answered() === 1, 1000, 'the held probe to land');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(modelsOf(await r.health.snapshot(), 1), ['late:8b'], 'the next listing reads what the probe found');
  });

  it('serves an answer as it is until it is 20 s old, then serves it once more and refreshes it behind the caller', async () => {
    const r = await rig(0, (_p, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    await r.health.read();
    r.clock.advance(INVENTORY_CACHE_MS - 1);
    assert.deepEqual(modelsOf(await r.health.snapshot()), ['old:8b']);
    r.clock.advance(1);
    assert.deepEqual(modelsOf(await r.health.snapshot()), ['old:8b'], 'an aging answer is served, not waited on');
    await until(() => r.engines[0]!.answered() === 2, 1000, 'the refresh behind the listing');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(modelsOf(await r.health.snapshot()), ['new:8b']);
  });
});
