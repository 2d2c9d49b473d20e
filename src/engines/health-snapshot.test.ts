import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, type Dispatcher } from 'undici';
import type { EngineEndpoint } from '../config/env.js';
import { pino } from 'pino';
import { Background } from '../util/background.js';
import { ManualClock } from '../util/clock.js';
import { scaled } from '../../test/helpers/time-scale.js';
import {
  deferred,
  NEVER,
  ollamaTags,
  settlesWithinATurn,
  startFakeEngine,
  until,
  WatchedAgent,
  type FakeEngine,
  type FakeReply,
} from './fake-engine.testkit.js';
import { BackendHealth, INVENTORY_CACHE_MS, LIVE_PROBE_REUSE_MS, PLACEMENT_BUDGET_MS, STALE_GRACE_MS } from './health-snapshot.js';

const TTL = 10_000;

/**
 * The placement budget runs on each rig's ManualClock, so nothing here waits it out: a test that
 * broke the budget would hang, and this bounds how long.
 */
const SUITE_TIMEOUT_MS = scaled(60_000);

interface Rig {
  readonly health: BackendHealth;
  readonly clock: ManualClock;
  readonly engines: FakeEngine[];
  /** The BackendHealth's dispatcher: counts the probes sent and the answers it is done with. */
  readonly dispatcher: WatchedAgent;
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
  const dispatcher = new WatchedAgent();
  const clock = new ManualClock();
  const state: { ttl: number } = { ttl };
  const health = new BackendHealth({
    endpoints,
    dispatcher,
    clock,
    timer: clock,
    ttlMs: () => state.ttl,
    background: new Background({ logger: pino({ level: 'silent' }), clock }),
    logger: pino({ level: 'silent' }),
  });
  cleanups.push(async () => {
    health.close();
    await Promise.all(engines.map((e) => e.close()));
    await dispatcher.destroy();
  });
  return Object.assign(state, { health, clock, engines, dispatcher });
}

/** Waits until the BackendHealth is done with `n` probe answers in all, and so has stored them. */
async function landed(r: Rig, n: number, what: string): Promise<void> {
  await until(() => r.dispatcher.finished() >= n, 1000, what);
}

/**
 * Starts a cold read over silent engines and checks it waits out exactly one placement budget on
 * the rig's clock: not done before PLACEMENT_BUDGET_MS, done the moment it passes.
 */
async function readOverBudget(r: Rig, probes: number): Promise<Awaited<ReturnType<BackendHealth['read']>>> {
  const read = r.health.read();
  await until(() => r.dispatcher.dispatched() === probes, 1000, 'the cold probes to be sent');
  assert.equal(r.clock.pendingTimers(), 1, 'one budget for the whole read');
  assert.equal(await settlesWithinATurn(read), false, 'the read waits while the engines are silent');
  r.clock.advance(PLACEMENT_BUDGET_MS - 1);
  assert.equal(await settlesWithinATurn(read), false, 'the read waits the whole budget');
  r.clock.advance(1);
  assert.equal(await settlesWithinATurn(read), true, 'the read ends when the budget runs out');
  return read;
}

const modelsOf = (views: Awaited<ReturnType<BackendHealth['read']>>, i = 0) => views[i]?.models.map((m) => m.name);

describe('BackendHealth with TTL 0 (the default)', { timeout: SUITE_TIMEOUT_MS }, () => {
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

describe('BackendHealth with a TTL', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('serves a fresh answer without probing', async () => {
    const r = await rig(TTL, () => ollamaTags('qwen3:8b'));
    await r.health.read();
    r.clock.advance(TTL - 1);
    const views = await r.health.read();
    assert.deepEqual(modelsOf(views), ['qwen3:8b']);
    assert.equal(views[0]?.probedMsAgo, TTL - 1);
    // A refresh behind the read would be handed to the dispatcher once the read's turn is over.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(r.dispatcher.dispatched(), 1, 'only the first read probed');
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

  it('after drop(), latest() still publishes the last answer while it re-probes behind the caller', async () => {
    const r = await rig(TTL, (_path, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    await r.health.read();
    r.clock.advance(3);
    r.health.drop('ollama-1');
    const dropped = r.health.latest(); // answers at once with what the engine last said; starts a probe in the background
    assert.deepEqual(
      [dropped[0]?.running, dropped[0]?.healthy, dropped[0]?.error, dropped[0]?.probedMsAgo, modelsOf(dropped)],
      [true, true, null, 3, ['old:8b']],
    );
    await until(() => r.engines[0]!.answered() === 2, 1000, 'the background probe');
    await until(() => modelsOf(r.health.latest())?.[0] === 'new:8b', 1000, 'the probe to land');
    assert.equal(r.engines[0]?.paths.length, 2, 'one re-probe, and none after it landed');
  });

  it('does not probe again for a refresh asked for while the answer it waits on was landing', async () => {
    const r = await rig(TTL, (_path, hit) => ollamaTags(`m${hit}:8b`));
    await r.health.read();
    r.health.drop('ollama-1');
    r.health.latest(); // asks for the re-probe
    // A status read in the same turn the re-probe's answer ends, before the answer is stored.
    r.dispatcher.onFinished = () => {
      r.dispatcher.onFinished = null;
      r.health.latest();
    };
    await until(() => modelsOf(r.health.latest())?.[0] === 'm2:8b', 1000, 'the re-probe to land');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(r.dispatcher.dispatched(), 2, 'the first probe and the one re-probe');
  });

  it('a probe already in flight when drop() is called does not settle it: the next read probes again', async () => {
    const slow = deferred<FakeReply>();
    const r = await rig(TTL, (_path, hit) => (hit === 2 ? slow.promise : ollamaTags(`m${hit}:8b`)));
    await r.health.read();
    r.clock.advance(TTL); // stale: the read serves m1 and starts a refresh that hangs
    assert.deepEqual(modelsOf(await r.health.read()), ['m1:8b']);
    await until(() => r.engines[0]!.paths.length === 2, 1000, 'the refresh to start');
    r.health.drop('ollama-1');
    slow.resolve(ollamaTags('m2:8b'));
    assert.deepEqual(modelsOf(await r.health.read()), ['m2:8b']); // waits on the probe in flight
    assert.deepEqual(modelsOf(await r.health.read()), ['m3:8b']);
    assert.equal(r.engines[0]?.paths.length, 3);
  });

  it('serves a stale answer at once and refreshes behind it; the next read sees the new answer', async () => {
    const refresh = deferred<FakeReply>();
    const r = await rig(TTL, (_path, hit) => (hit === 1 ? ollamaTags('old:8b') : refresh.promise));
    await r.health.read();
    r.clock.advance(TTL);
    const read = r.health.read();
    // The refresh is held, and the budget would wait for the clock: only a read that waits for neither is done.
    assert.equal(await settlesWithinATurn(read), true, 'a stale read does not wait for its refresh');
    const stale = await read;
    assert.deepEqual(modelsOf(stale), ['old:8b']);
    assert.equal(stale[0]?.probedMsAgo, TTL);
    await until(() => r.engines[0]!.paths.length === 2, 1000, 'the background refresh');
    refresh.resolve(ollamaTags('new:8b'));
    await landed(r, 2, 'the refresh to land');
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
      logger: pino({ level: 'silent' }),
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

  it('on a cold read, gives silent engines one shared 500 ms budget, and the next read does not wait once the probes landed (the four of fifteen nodes at a flat 5.0 s)', async () => {
    const first = deferred<FakeReply>();
    const second = deferred<FakeReply>();
    // Each engine answers its first probe only when released; any later probe would hang.
    const r = await rig(
      TTL,
      (_p, hit) => (hit === 1 ? first.promise : NEVER),
      (_p, hit) => (hit === 1 ? second.promise : NEVER),
    );
    const cold = await readOverBudget(r, 2);
    for (const view of cold) {
      assert.equal(view.running, false);
      assert.equal(view.healthy, false);
      assert.match(view.error ?? '', /no answer within the 500 ms placement budget/);
      assert.equal(view.probedMsAgo, null);
    }

    first.resolve(ollamaTags('qwen3:8b'));
    second.resolve({ status: 500, text: 'boom' });
    await landed(r, 2, 'both probes to land');

    const read = r.health.read();
    assert.equal(await settlesWithinATurn(read), true, 'the next read does not wait');
    const next = await read;
    assert.deepEqual([next[0]?.running, next[0]?.healthy, modelsOf(next)], [true, true, ['qwen3:8b']]);
    assert.deepEqual([next[1]?.running, next[1]?.healthy, next[1]?.error], [true, false, 'HTTP 500']);
    assert.deepEqual(
      r.engines.map((e) => e.paths.length),
      [1, 1],
      'no engine was probed again',
    );
  });

  it('while a cold probe is still in flight after one read spent its budget, later reads do not wait the budget again', async () => {
    const held = deferred<FakeReply>();
    const r = await rig(TTL, (_p, hit) => (hit === 1 ? held.promise : NEVER));
    await readOverBudget(r, 1);
    for (let i = 0; i < 3; i++) {
      const read = r.health.read();
      assert.equal(await settlesWithinATurn(read), true, `read ${i + 2} waits for a probe already waited out`);
      assert.match((await read)[0]?.error ?? '', /no answer within the 500 ms placement budget/);
    }
    assert.equal(r.engines[0]!.paths.length, 1, 'the probe in flight is shared, not restarted');
    held.resolve(ollamaTags('qwen3:8b'));
    await landed(r, 1, 'the probe to land');
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

  it('changes when an answer is read, never what it says: fresh, stale and cold reads give the views a live probe gives', async () => {
    // Three engines answering three ways: holding models, holding none, and failing the probe.
    const r = await rig(
      0,
      () => ollamaTags('qwen3:8b', 'gemma3:1b'),
      () => ollamaTags(),
      () => ({ status: 500, text: 'internal error' }),
    );
    const withoutAge = (views: Awaited<ReturnType<BackendHealth['read']>>) => views.map(({ probedMsAgo: _age, ...rest }) => rest);
    const live = withoutAge(await r.health.read());
    r.ttl = TTL;
    r.clock.advance(TTL + STALE_GRACE_MS);
    assert.deepEqual(withoutAge(await r.health.read()), live, 'a cold read');
    r.clock.advance(TTL - 1);
    assert.deepEqual(withoutAge(await r.health.read()), live, 'a fresh read');
    r.clock.advance(1);
    assert.deepEqual(withoutAge(await r.health.read()), live, 'a stale read');
    assert.deepEqual(
      live.map((v) => [v.backendId, v.running, v.healthy, v.models.map((m) => m.name)]),
      [
        ['ollama-1', true, true, ['qwen3:8b', 'gemma3:1b']],
        ['ollama-2', true, true, []],
        ['ollama-3', true, false, []],
      ],
      'the engines in the order they are configured, each as it answered',
    );
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

describe('BackendHealth.latest', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('never waits: says "not probed yet" before the first answer and refreshes in the background', async () => {
    const r = await rig(TTL, () => ollamaTags('qwen3:8b'));
    const first = r.health.latest();
    assert.deepEqual([first[0]?.running, first[0]?.error, first[0]?.probedMsAgo], [false, 'not probed yet', null]);
    await landed(r, 1, 'the background probe to land');
    assert.deepEqual(modelsOf(r.health.latest()), ['qwen3:8b']);
  });
});

describe('BackendHealth.snapshot(), what the listings read (issue 10 audit)', { timeout: SUITE_TIMEOUT_MS }, () => {
  it("at the default TTL 0, answers while a silent engine's probe is still pending, and never starts or waits for another", async () => {
    const held = deferred<FakeReply>();
    const r = await rig(
      0,
      () => ollamaTags('qwen3:8b'),
      (_p, hit) => (hit === 1 ? held.promise : NEVER),
    );
    // Nothing answered yet: the first listing finds both engines cold and waits one budget.
    const listing = r.health.snapshot();
    await landed(r, 1, "the quick engine's answer");
    assert.equal(await settlesWithinATurn(listing), false, 'the first listing waits for the silent engine within the budget');
    r.clock.advance(PLACEMENT_BUDGET_MS);
    const first = await listing;
    assert.equal(r.engines[1]!.answered(), 0, 'the listing answered before the silent engine did');
    assert.deepEqual([modelsOf(first, 0), first[1]?.healthy], [['qwen3:8b'], false]);
    const next = r.health.snapshot();
    assert.equal(await settlesWithinATurn(next), true, 'the next listing does not wait for the silent engine again');
    const again = await next;
    assert.equal(r.engines[1]!.answered(), 0);
    assert.deepEqual([modelsOf(again, 0), again[1]?.healthy], [['qwen3:8b'], false]);
    assert.deepEqual(
      r.engines.map((e) => e.paths.length),
      [1, 1],
      'one probe each: a listing is no live probe',
    );
    held.resolve(ollamaTags('late:8b'));
    await landed(r, 2, 'the held probe to land');
    assert.deepEqual(modelsOf(await r.health.snapshot(), 1), ['late:8b'], 'the next listing reads what the probe found');
  });

  it('serves an answer as it is until it is 20 s old, then serves it once more and refreshes it behind the caller', async () => {
    const r = await rig(0, (_p, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    await r.health.read();
    r.clock.advance(INVENTORY_CACHE_MS - 1);
    assert.deepEqual(modelsOf(await r.health.snapshot()), ['old:8b']);
    r.clock.advance(1);
    assert.deepEqual(modelsOf(await r.health.snapshot()), ['old:8b'], 'an aging answer is served, not waited on');
    await landed(r, 2, 'the refresh behind the listing to land');
    assert.deepEqual(modelsOf(await r.health.snapshot()), ['new:8b']);
  });
});

/** How far NTP set the clock back in the audit's case: a Hub that booted two hours fast. */
const STEP_BACK_MS = 2 * 3_600_000;

describe('BackendHealth after the wall clock is set back (an answer stamped ahead of now)', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('at TTL 0, probes again rather than reusing the answer as live for as long as the step', async () => {
    const r = await rig(0, (_path, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    await r.health.read();
    r.clock.advance(-STEP_BACK_MS);
    assert.deepEqual(modelsOf(await r.health.read()), ['new:8b']);
    assert.equal(r.engines[0]?.paths.length, 2);
  });

  it('with a TTL, reads the answer as cold and waits for a new probe, rather than serving it as fresh', async () => {
    const r = await rig(TTL, (_path, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    await r.health.read();
    r.clock.advance(-STEP_BACK_MS);
    assert.deepEqual(modelsOf(await r.health.read()), ['new:8b']);
    assert.equal(r.engines[0]?.paths.length, 2);
  });

  it('latest() serves the last answer and refreshes it behind the caller', async () => {
    const r = await rig(TTL, (_path, hit) => ollamaTags(hit === 1 ? 'old:8b' : 'new:8b'));
    await r.health.read();
    r.clock.advance(-STEP_BACK_MS);
    assert.deepEqual(modelsOf(r.health.latest()), ['old:8b']);
    await landed(r, 2, 'the refresh behind the status look to land');
    assert.deepEqual(modelsOf(r.health.latest()), ['new:8b']);
  });

  it('a listing serves the last answer at once and refreshes it behind the caller, never waiting on it', async () => {
    const refresh = deferred<FakeReply>();
    const r = await rig(0, (_path, hit) => (hit === 1 ? ollamaTags('old:8b') : refresh.promise));
    await r.health.read();
    r.clock.advance(-STEP_BACK_MS);
    const listing = r.health.snapshot();
    // The refresh is held and the budget waits for the clock: only a listing that waits for neither is done.
    assert.equal(await settlesWithinATurn(listing), true, 'the listing does not wait for the refresh');
    assert.deepEqual(modelsOf(await listing), ['old:8b']);
    await until(() => r.engines[0]!.paths.length === 2, 1000, 'the refresh behind the listing');
    refresh.resolve(ollamaTags('new:8b'));
    await landed(r, 2, 'the refresh to land');
    assert.deepEqual(modelsOf(await r.health.snapshot()), ['new:8b']);
  });
});

describe('BackendHealth with many engines', () => {
  it(
    'reads a dozen silent engines at once without Node warning of an abort-listener leak (one shared shutdown signal, one listener per read in flight)',
    { timeout: SUITE_TIMEOUT_MS },
    async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      try {
        const r = await rig(TTL, ...Array.from({ length: 12 }, () => () => NEVER));
        r.health.latest();
        await until(() => r.engines.every((e) => e.paths.length === 1), 1000, 'every engine to be asked');
        // Node emits the warning on a later tick than the listener that passed the limit.
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(warnings, []);
      } finally {
        process.off('warning', onWarning);
      }
    },
  );
});
