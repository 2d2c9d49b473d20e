/**
 * Who times a turn, and when (spec, "Throughput-aware placement", "What is measured"), through two
 * real Hubs: hub-a has no engine for the model and forwards it to hub-b, whose simulated Ollama
 * reports its own prompt_eval_duration.
 * - Both the entry node and the node that serves the forward record the reading: the entry node
 *   as its view of the peer, the serving node as its own engine's.
 * - A turn sent while the serving node had another request in flight is timed by neither, so a
 *   queue is never recorded as slow hardware.
 * - A restart forgets it all.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeldRequests, nodeName, type PoolHub, post, TEST_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';

const MODEL = 'qwen3.6:27b';
/** On hub-b only: its engine holds these, so hub-a's forwards keep hub-b busy. */
const HOLD = 'hold-b:1b';

/** A native chat whose prompt is about `tokens` tokens (4 characters each, as both the engine and the Hub count). */
async function turn(hub: PoolHub, tokens: number, word = 'word'): Promise<string | null> {
  const res = await post(hub, '/api/chat', {
    model: MODEL,
    stream: false,
    messages: [{ role: 'user', content: `${word} `.repeat(Math.floor((tokens * 4) / (word.length + 1))) }],
  });
  assert.equal(res.status, 200, res.text.slice(0, 300));
  return (await hub.settledRow(String(res.headers['x-hub-pool-request-id']))).node;
}

/** The bands' starts: `a`'s view of b, and b's view of its own engine. */
async function bandsOf(a: PoolHub, b: PoolHub): Promise<{ entry: number[]; serving: number[] }> {
  const seen = (await a.status()).peers.find((p) => p.nodeFqdn === nodeName('b'))?.throughput?.observed ?? [];
  const own = (await b.status()).localNode.throughput?.estimates ?? [];
  const starts = (estimates: readonly { model: string; bands: readonly { fromTokens: number }[] }[]) =>
    estimates.filter((e) => e.model === MODEL).flatMap((e) => e.bands.map((band) => band.fromTokens));
  return { entry: starts(seen), serving: starts(own) };
}

describe('who times a forwarded turn', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: {
      a: { ollama: { models: ['a-only:1b'] } },
      b: { ollama: { models: [{ name: MODEL, prefillTps: 2000 }, HOLD], slots: 4 } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 10 },
  });

  it('the entry node and the node that serves it both record the reading', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    assert.deepEqual(await bandsOf(a, b), { entry: [], serving: [] }, 'nothing timed yet');
    assert.equal(await turn(a, 10_000), nodeName('b'));
    assert.deepEqual(await bandsOf(a, b), { entry: [8192], serving: [8192] });
  });

  it('a turn sent while the serving node had another request in flight is timed by neither', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await b.engines.ollama!.setFault({ mode: 'hang', model: HOLD });
    const held = new HeldRequests(a, HOLD, { servedBy: b.engines.ollama! });
    try {
      await held.hold(1);
      assert.equal(await turn(a, 20_000), nodeName('b'));
      const bands = await bandsOf(a, b);
      assert.ok(!bands.entry.includes(16_384) && !bands.serving.includes(16_384), `a queue is not slow hardware: ${JSON.stringify(bands)}`);
    } finally {
      await held.releaseAll();
      await b.engines.ollama!.clearFaults();
    }
    // A turn of the same size on the idle node is timed, by both. Another prompt: the one above is
    // in the engine's prompt cache now, and this engine, reporting no cached count, would time the
    // whole prompt as read in half a millisecond, a rate no engine reaches and so no reading.
    assert.equal(await turn(a, 20_000, 'other'), nodeName('b'));
    const bands = await bandsOf(a, b);
    assert.ok(bands.entry.includes(16_384) && bands.serving.includes(16_384), JSON.stringify(bands));
  });

  it('a restart forgets every reading: the book is kept in memory only', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    assert.notDeepEqual(await bandsOf(a, b), { entry: [], serving: [] }, 'the turns above were timed');
    await a.restart();
    await b.restart();
    await waitConnected(a, b);
    assert.deepEqual(await bandsOf(a, b), { entry: [], serving: [] });
  });
});
