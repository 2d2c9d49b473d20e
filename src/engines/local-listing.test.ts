import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { NEVER, ollamaTags, startFakeEngine, until, type FakeEngine, type FakeReply } from './fake-engine.testkit.js';
import { LOCAL_LISTING_DEADLINE_MS, listLocal } from './local-listing.js';
import type { BackendView } from './types.js';
import { backendViewFixture } from './backend-view.fixture.js';

const dispatcher = new Agent();
const engines: FakeEngine[] = [];
after(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await dispatcher.destroy();
});

/** A healthy Ollama view of a fake engine that answers /api/tags after `delayMs`, or never. */
async function engine(id: string, delayMs: number | 'never', reply: FakeReply = ollamaTags(`${id}-model`)): Promise<{ view: BackendView; server: FakeEngine }> {
  const server = await startFakeEngine(() => (delayMs === 'never' ? NEVER : new Promise<FakeReply>((r) => setTimeout(() => r(reply), delayMs))));
  engines.push(server);
  const view = backendViewFixture([], { backendId: id, url: server.url });
  return { view, server };
}

async function list(views: BackendView[]) {
  const start = performance.now();
  const result = await listLocal(views, () => '/api/tags', dispatcher);
  return { ...result, ms: performance.now() - start };
}

const answeredIds = (r: Awaited<ReturnType<typeof list>>) => r.answers.map((a) => a.backend.backendId);
const leftOutIds = (r: Awaited<ReturnType<typeof list>>) => r.leftOut.map((b) => b.backendId);

describe('listLocal', { concurrency: true }, () => {
  it('gives each engine 2.5 s from the start of the listing', () => {
    assert.equal(LOCAL_LISTING_DEADLINE_MS, 2_500);
  });

  it('answers at the deadline without an engine still silent while another has answered, and aborts its request', async () => {
    const fast = await engine('ollama-1', 0);
    const silent = await engine('ollama-2', 'never');
    const result = await list([silent.view, fast.view]);
    assert.deepEqual(answeredIds(result), ['ollama-1']);
    assert.deepEqual(result.answers[0]?.body, ollamaTags('ollama-1-model').json);
    assert.deepEqual(leftOutIds(result), ['ollama-2']);
    assert.ok(result.ms >= LOCAL_LISTING_DEADLINE_MS - 100, `answered after ${result.ms} ms, before the deadline`);
    // The silent engine never answers: any bound short of a second deadline shows it was not waited for.
    assert.ok(result.ms < 2 * LOCAL_LISTING_DEADLINE_MS, `answered after ${result.ms} ms, long past the deadline`);
    await until(() => silent.server.abandoned() === 1, 1000, 'the silent engine to see its request closed');
  });

  it('when no engine has answered by the deadline, uses the first to answer and leaves the rest out', async () => {
    const late = await engine('ollama-1', LOCAL_LISTING_DEADLINE_MS + 300);
    const silent = await engine('ollama-2', 'never');
    const result = await list([silent.view, late.view]);
    assert.deepEqual(answeredIds(result), ['ollama-1']);
    assert.deepEqual(leftOutIds(result), ['ollama-2']);
    assert.ok(result.ms >= LOCAL_LISTING_DEADLINE_MS + 200, `answered after ${result.ms} ms, before the late engine did`);
    assert.ok(result.ms < 2 * LOCAL_LISTING_DEADLINE_MS, `answered after ${result.ms} ms`);
    await until(() => silent.server.abandoned() === 1, 1000, 'the silent engine to see its request closed');
  });

  it('waits for a lone slow engine past the deadline', async () => {
    const slow = await engine('ollama-1', LOCAL_LISTING_DEADLINE_MS + 200);
    const result = await list([slow.view]);
    assert.deepEqual(answeredIds(result), ['ollama-1']);
    assert.deepEqual(leftOutIds(result), []);
    assert.ok(result.ms >= LOCAL_LISTING_DEADLINE_MS + 100, `answered after ${result.ms} ms`);
  });

  it('does not wait for the deadline when every engine has answered', async () => {
    const a = await engine('ollama-1', 60);
    const b = await engine('ollama-2', 0);
    const result = await list([a.view, b.view]);
    assert.ok(result.ms < LOCAL_LISTING_DEADLINE_MS, `took ${result.ms} ms, as if it waited for the deadline`);
    assert.deepEqual(answeredIds(result), ['ollama-1', 'ollama-2'], 'configured order, not arrival order');
    assert.deepEqual(leftOutIds(result), []);
  });

  it('counts an engine that answered with an error as settled, not as an answer', async () => {
    const broken = await engine('ollama-1', 0, { status: 500, text: 'boom' });
    const good = await engine('ollama-2', 0);
    const result = await list([broken.view, good.view]);
    assert.deepEqual(answeredIds(result), ['ollama-2']);
    assert.deepEqual(leftOutIds(result), []);
    assert.ok(result.ms < LOCAL_LISTING_DEADLINE_MS, `took ${result.ms} ms, as if it waited for the deadline`);
  });

  it('answers an empty list at once', async () => {
    const result = await list([]);
    assert.deepEqual([result.answers, result.leftOut], [[], []]);
    assert.ok(result.ms < LOCAL_LISTING_DEADLINE_MS, `took ${result.ms} ms, as if it waited for the deadline`);
  });
});
