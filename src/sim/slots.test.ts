import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveProfiles } from './model-profile.js';
import { ModelRuntime, type SlotLease } from './slots.js';
import { TimeScale } from './timing.js';
import { waitFor } from './test-helpers.js';

function runtime(slots: number, opts: { preloaded?: number | null; keepAliveMs?: number } = {}): ModelRuntime {
  const [profile] = resolveProfiles({ dialect: 'ollama', models: [{ name: 'm', slots }], loadMs: 100 });
  assert.ok(profile);
  return new ModelRuntime(profile, new TimeScale(0.01), {
    preloadedNumCtx: opts.preloaded === undefined ? 4096 : opts.preloaded,
    keepAliveMs: opts.keepAliveMs ?? -1,
    expires: true,
  });
}

const signal = new AbortController().signal;
const req = (prompt: string, numCtx = 4096, s: AbortSignal = signal) => ({ prompt, numCtx, signal: s });

describe('model runner slots', () => {
  it('queues a third request behind two busy slots', async () => {
    const r = runtime(2);
    const a = await r.acquire(req('a'));
    const b = await r.acquire(req('b'));
    const got: { third?: SlotLease } = {};
    const pending = r.acquire(req('c')).then((l) => (got.third = l));
    await waitFor(() => r.queued === 1, 'the third request to queue');
    assert.equal(r.inFlight, 2);
    assert.equal(got.third, undefined);
    a.release('keep');
    const third = await pending;
    assert.equal(r.queued, 0);
    assert.equal(r.inFlight, 2);
    b.release('keep');
    third.release('keep');
    assert.equal(r.inFlight, 0);
  });

  it('serves queued requests in arrival order', async () => {
    const r = runtime(1);
    const first = await r.acquire(req('x'));
    const order: string[] = [];
    const waits = ['p', 'q', 'r'].map((p) => r.acquire(req(p)).then((l) => (order.push(p), l.release('keep'))));
    await waitFor(() => r.queued === 3, 'three queued requests');
    first.release('keep');
    await Promise.all(waits);
    assert.deepEqual(order, ['p', 'q', 'r']);
  });

  it('gives a request the free slot whose cache shares the longest prefix', async () => {
    const r = runtime(2);
    const a = await r.acquire(req('a'));
    const b = await r.acquire(req('b'));
    a.release({ text: 'A'.repeat(400) });
    b.release({ text: 'B'.repeat(400) });
    const lease = await r.acquire(req(`${'B'.repeat(400)} and more`));
    assert.equal(lease.slotIndex, b.slotIndex);
    assert.equal(lease.cachedTokens, 100);
    lease.release('keep');
  });

  it('reloads at a new window only after running requests finish, clearing every cache', async () => {
    const r = runtime(2);
    const running = await r.acquire(req('a'));
    const idle = await r.acquire(req('b'));
    idle.release({ text: 'cached text here' });
    const got: { reloaded?: SlotLease } = {};
    const pending = r.acquire(req('c', 8192)).then((l) => (got.reloaded = l));
    await waitFor(() => r.queued === 1, 'the 8192 request to wait');
    assert.equal(got.reloaded, undefined, 'a free slot is not enough while the old window is in use');
    running.release('keep');
    const reloaded = await pending;
    assert.ok(reloaded.loaded);
    assert.equal(reloaded.loadSimMs, 100);
    assert.equal(r.loadedNumCtx(), 8192);
    assert.equal(r.loads, 1);
    assert.deepEqual(r.slotCachedTokens(), [0, 0]);
    reloaded.release('keep');
  });

  it('holds requests for the old window behind a pending reload', async () => {
    const r = runtime(2);
    const running = await r.acquire(req('a'));
    const order: number[] = [];
    const big = r.acquire(req('b', 8192)).then((l) => (order.push(8192), l));
    const small = r.acquire(req('c', 4096)).then((l) => (order.push(4096), l));
    await waitFor(() => r.queued === 2, 'both requests to queue');
    running.release('keep');
    const bigLease = await big;
    bigLease.release('keep');
    (await small).release('keep');
    assert.deepEqual(order, [8192, 4096]);
    assert.equal(r.loads, 2);
  });

  it('loads on first use when nothing is preloaded', async () => {
    const r = runtime(1, { preloaded: null });
    assert.equal(r.loadedNumCtx(), null);
    const lease = await r.acquire(req('a', 2048));
    assert.ok(lease.loaded);
    assert.equal(r.loadedNumCtx(), 2048);
    lease.release('keep');
  });

  it('drops an aborted request from the queue', async () => {
    const r = runtime(1);
    const busy = await r.acquire(req('a'));
    const ac = new AbortController();
    const pending = r.acquire(req('b', 4096, ac.signal));
    await waitFor(() => r.queued === 1, 'the request to queue');
    ac.abort(new DOMException('gone', 'AbortError'));
    await assert.rejects(pending, { name: 'AbortError' });
    assert.equal(r.queued, 0);
    busy.release('keep');
  });

  it('keeps an idle model loaded while its keep-alive lasts', async () => {
    // An hour, 36 s of wall time at this scale: no pause of the test process comes near it.
    const r = runtime(1, { keepAliveMs: 3_600_000 });
    (await r.acquire(req('a'))).release({ text: 'abcd' });
    assert.equal(r.loadedNumCtx(), 4096);
    assert.deepEqual(r.slotCachedTokens(), [1]);
  });

  it('unloads an idle model when its keep-alive runs out', async () => {
    // 1 ms of wall time: asserting it still loaded right after release raced a busy machine.
    const r = runtime(1, { keepAliveMs: 100 });
    (await r.acquire(req('a'))).release({ text: 'abcd' });
    await waitFor(() => r.loadedNumCtx() === null, 'the keep-alive to run out');
    assert.deepEqual(r.slotCachedTokens(), [0]);
  });
});
