import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { scaled } from '../../test/helpers/time-scale.js';
import { ManualClock } from '../util/clock.js';
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
import { LOCAL_LISTING_DEADLINE_MS, listLocal, type ListingResult } from './local-listing.js';
import type { BackendView } from './types.js';
import { backendViewFixture } from './backend-view.fixture.js';

/**
 * The deadline runs on each test's ManualClock, never on its own: a listing that waited for it
 * when it must not would hang, and this bounds how long.
 */
const TEST_TIMEOUT_MS = scaled(30_000);

const dispatcher = new WatchedAgent();
const engines: FakeEngine[] = [];
after(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await dispatcher.destroy();
});

/** A healthy Ollama view of a fake engine that answers /api/tags with `reply` (at once, when it settles, or never). */
async function engine(id: string, reply: FakeReply | Promise<FakeReply> = ollamaTags(`${id}-model`)): Promise<{ view: BackendView; server: FakeEngine }> {
  const server = await startFakeEngine(() => reply);
  engines.push(server);
  const view = backendViewFixture([], { backendId: id, url: server.url });
  return { view, server };
}

/** Starts a listing whose deadline runs on a ManualClock of its own. */
function list(views: BackendView[]): { result: Promise<ListingResult>; clock: ManualClock } {
  const clock = new ManualClock();
  return { result: listLocal(views, () => '/api/tags', dispatcher, clock), clock };
}

const answeredIds = (r: ListingResult) => r.answers.map((a) => a.backend.backendId);
const leftOutIds = (r: ListingResult) => r.leftOut.map((b) => b.backendId);

// Not concurrent: the tests share the dispatcher whose finished exchanges one of them counts.
describe('listLocal', () => {
  it('gives each engine 2.5 s from the start of the listing', () => {
    assert.equal(LOCAL_LISTING_DEADLINE_MS, 2_500);
  });

  it('answers at the deadline without an engine still silent while another has answered, and aborts its request', { timeout: TEST_TIMEOUT_MS }, async () => {
    const fast = await engine('ollama-1');
    const silent = await engine('ollama-2', NEVER);
    const finishedBefore = dispatcher.finished();
    const { result, clock } = list([silent.view, fast.view]);
    await until(() => dispatcher.finished() >= finishedBefore + 1 && silent.server.paths.length === 1, 1000, 'the fast answer to be read');
    assert.equal(await settlesWithinATurn(result), false, 'the listing waits for the silent engine until the deadline');
    clock.advance(LOCAL_LISTING_DEADLINE_MS - 1);
    assert.equal(await settlesWithinATurn(result), false, 'the listing waits the whole deadline');
    clock.advance(1);
    assert.equal(await settlesWithinATurn(result), true, 'the listing answers at the deadline');
    const listing = await result;
    assert.deepEqual(answeredIds(listing), ['ollama-1']);
    assert.deepEqual(listing.answers[0]?.body, ollamaTags('ollama-1-model').json);
    assert.deepEqual(leftOutIds(listing), ['ollama-2']);
    await new Promise((resolve) => setImmediate(resolve));
    // Aborted with the answer: left alone, the request would only end at the 5 s transport timeout.
    assert.equal(dispatcher.finished(), finishedBefore + 2, "the silent engine's request ends with the listing");
    await until(() => silent.server.abandoned() === 1, 1000, 'the silent engine to see its request closed');
  });

  it('when no engine has answered by the deadline, uses the first to answer and leaves the rest out', { timeout: TEST_TIMEOUT_MS }, async () => {
    const held = deferred<FakeReply>();
    const late = await engine('ollama-1', held.promise);
    const silent = await engine('ollama-2', NEVER);
    const finishedBefore = dispatcher.finished();
    const { result, clock } = list([silent.view, late.view]);
    await until(() => late.server.paths.length === 1 && silent.server.paths.length === 1, 1000, 'both requests to arrive');
    clock.advance(LOCAL_LISTING_DEADLINE_MS);
    assert.equal(await settlesWithinATurn(result), false, 'with no answer at the deadline, the listing waits for the first');
    held.resolve(ollamaTags('ollama-1-model'));
    const listing = await result;
    assert.deepEqual(answeredIds(listing), ['ollama-1']);
    assert.deepEqual(leftOutIds(listing), ['ollama-2']);
    await new Promise((resolve) => setImmediate(resolve));
    // Aborted with the answer: left alone, the request would only end at the 5 s transport timeout.
    assert.equal(dispatcher.finished(), finishedBefore + 2, "the silent engine's request ends with the listing");
    await until(() => silent.server.abandoned() === 1, 1000, 'the silent engine to see its request closed');
  });

  it('waits for a lone slow engine past the deadline', { timeout: TEST_TIMEOUT_MS }, async () => {
    const held = deferred<FakeReply>();
    const slow = await engine('ollama-1', held.promise);
    const { result, clock } = list([slow.view]);
    await until(() => slow.server.paths.length === 1, 1000, 'the request to arrive');
    clock.advance(LOCAL_LISTING_DEADLINE_MS);
    assert.equal(await settlesWithinATurn(result), false, 'a lone engine is waited for past the deadline');
    held.resolve(ollamaTags('ollama-1-model'));
    const listing = await result;
    assert.deepEqual(answeredIds(listing), ['ollama-1']);
    assert.deepEqual(leftOutIds(listing), []);
  });

  // The clocks below are never advanced: a listing that waited for the deadline would not end.
  it('does not wait for the deadline when every engine has answered', { timeout: TEST_TIMEOUT_MS }, async () => {
    const held = deferred<FakeReply>();
    const a = await engine('ollama-1', held.promise);
    const b = await engine('ollama-2');
    const finishedBefore = dispatcher.finished();
    const { result, clock } = list([a.view, b.view]);
    await until(() => dispatcher.finished() >= finishedBefore + 1 && a.server.paths.length === 1, 1000, "the second engine's answer to be read first");
    held.resolve(ollamaTags('ollama-1-model'));
    const listing = await result;
    assert.deepEqual(answeredIds(listing), ['ollama-1', 'ollama-2'], 'configured order, not arrival order');
    assert.deepEqual(leftOutIds(listing), []);
    assert.equal(clock.pendingTimers(), 0, "the deadline's timer is cancelled, not left to run out");
  });

  it('counts an engine that answered with an error as settled, not as an answer', { timeout: TEST_TIMEOUT_MS }, async () => {
    const broken = await engine('ollama-1', { status: 500, text: 'boom' });
    const good = await engine('ollama-2');
    const listing = await list([broken.view, good.view]).result;
    assert.deepEqual(answeredIds(listing), ['ollama-2']);
    assert.deepEqual(leftOutIds(listing), []);
  });

  it('answers an empty list at once', async () => {
    const { result } = list([]);
    assert.equal(await settlesWithinATurn(result), true);
    assert.deepEqual(await result, { answers: [], leftOut: [] });
  });
});
