/**
 * The much-slower rule's one-request margin through three real Hubs (spec, "Much slower than a
 * node as free"): hub-a has no engine for the model; hub-b reads prompts fast and states two
 * Ollama slots; hub-c reads them slowly. With one of a's requests in flight on b, the ranker puts
 * the idle c first, but b states a slot free for the turn, so b goes ahead of c. The statement is
 * read with slot awareness off, as it is on a by default.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeldRequests, nodeName, POOL_API, type PoolHub, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const MODEL = 'qwen3.6:27b';
const HOLD = 'hold-b:1b';
const PINS = `${POOL_API}/pins`;

async function turn(hub: PoolHub, tokens: number) {
  const res = await post(hub, '/api/chat', {
    model: MODEL,
    stream: false,
    messages: [{ role: 'user', content: 'word '.repeat(Math.floor((tokens * 4) / 5)) }],
  });
  assert.equal(res.status, 200, res.text.slice(0, 300));
  return hub.settledRow(String(res.headers['x-hub-pool-request-id']));
}

/** Times `target` from `hub` with one pinned turn. */
async function measure(hub: PoolHub, target: string, tokens: number): Promise<void> {
  assert.equal((await hub.api('POST', PINS, { scope: 'model', model: MODEL, target })).status, 200);
  try {
    assert.equal((await turn(hub, tokens)).node, target);
  } finally {
    await hub.api('DELETE', `${PINS}?scope=model&model=${encodeURIComponent(MODEL)}`);
  }
}

describe('the one-request margin of the much-slower rule', () => {
  const pool = usePool<'a' | 'b' | 'c'>({
    hubs: {
      a: { ollama: { models: ['a-only:1b'] } },
      b: { ollama: { models: [{ name: MODEL, prefillTps: 3000 }, HOLD], slots: 4 }, settings: { inferenceOllamaSlots: 2 } },
      c: { ollama: { models: [{ name: MODEL, prefillTps: 100 }] } },
    },
    pairs: [
      ['a', 'c'],
      ['a', 'b'],
    ],
    settings: { poolHealthPollSeconds: 10 },
  });

  it('a much faster node with one request in flight and a slot it states free goes ahead of an idle slow one', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    assert.equal((await a.status()).localNode.slotAwareness, false, 'slot awareness is off on the entry node');
    assert.equal((await a.status()).peers.find((p) => p.nodeFqdn === nodeName('b'))?.ollamaSlots, 2);
    await measure(a, nodeName('c'), 20_000);
    await measure(a, nodeName('b'), 20_000);
    await b.engines.ollama!.setFault({ mode: 'hang', model: HOLD });
    const held = new HeldRequests(a, HOLD, { servedBy: b.engines.ollama! });
    try {
      await held.hold(1);
      const row = await turn(a, 30_000);
      assert.equal(row.node, nodeName('b'));
      assert.deepEqual(
        row.throughput?.slowerDemoted.map((d) => [d.node, d.inFlight, d.fasterNode, d.fasterInFlight]),
        [[nodeName('c'), 0, nodeName('b'), 1]],
      );
    } finally {
      await held.releaseAll();
      await b.engines.ollama!.clearFaults();
    }
  });
});
