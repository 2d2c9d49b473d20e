/**
 * Unmeasured is not known to be fast (spec, "Throughput-aware placement", "Where it applies"),
 * through three real Hubs: hub-a has no engine for the model, hub-b's simulated Ollama has been
 * timed, hub-c's never has. a paired with c first, so its ranker lists c first of the two idle
 * peers. The 2026-09-29 core-7 turn (7,731 estimated tokens to a node nothing had timed) is the
 * case: a large turn goes to the measured peer, the row names the peer it deferred and on what
 * prior (the tier c advertises), and `cihub pool log` says so. A prompt under 6,144 estimated tokens still goes to the
 * unmeasured peer, which is how it gets measured.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nodeName, POOL_API, type PoolHub, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { runCli } from '../helpers/hub-process.js';

const MODEL = 'qwen3.6:27b';
const PINS = `${POOL_API}/pins`;

/** A native chat whose prompt is about `tokens` tokens (4 characters each, as both the engine and the Hub count). */
async function turn(hub: PoolHub, tokens: number) {
  const res = await post(hub, '/api/chat', {
    model: MODEL,
    stream: false,
    messages: [{ role: 'user', content: 'word '.repeat(Math.floor((tokens * 4) / 5)) }],
  });
  assert.equal(res.status, 200, res.text.slice(0, 300));
  return hub.settledRow(String(res.headers['x-hub-pool-request-id']));
}

describe('an unmeasured peer and a large turn', () => {
  const pool = usePool<'a' | 'b' | 'c'>({
    hubs: {
      a: { ollama: { models: ['a-only:1b'] } },
      b: { ollama: { models: [{ name: MODEL, prefillTps: 2000 }] } },
      c: { ollama: { models: [{ name: MODEL, prefillTps: 2000 }] } },
    },
    pairs: [
      ['a', 'c'],
      ['a', 'b'],
    ],
    settings: { poolHealthPollSeconds: 10 },
  });

  it(
    'the core-7 turn of 2026-09-29: it goes behind the measured peer the ranker scored the same, and the row and the log say why',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a } = pool();
      // b is timed by a pinned turn in the 4,096 band, which applies to the larger turn; c never is.
      assert.equal((await a.api('POST', PINS, { scope: 'model', model: MODEL, target: nodeName('b') })).status, 200);
      try {
        assert.equal((await turn(a, 5000)).node, nodeName('b'));
      } finally {
        await a.api('DELETE', `${PINS}?scope=model&model=${encodeURIComponent(MODEL)}`);
      }

      const row = await turn(a, 7731);
      assert.equal(row.node, nodeName('b'));
      assert.equal(row.attempt, 1);
      // The prior is the tier c advertises, which is this machine's: cpu-only on one without a sized GPU.
      const tier = (await a.status()).peers.find((p) => p.nodeFqdn === nodeName('c'))?.hardwareTier ?? null;
      const prior = tier === 'cpu-only' || tier === 'insufficient' ? 'cpu-only' : 'unknown';
      assert.deepEqual(row.throughput?.unmeasured, [{ node: nodeName('c'), backend: null, prior }]);
      const log = await runCli(['pool', 'log', '--limit', '1'], { dataDir: a.dataDir });
      assert.equal(log.code, 0, log.stderr);
      assert.match(
        log.stdout,
        new RegExp(
          `↳ moved ${nodeName('c').replace(/\./g, '\\.')} behind a node measured to meet the budget: nothing has timed it for ~\\d+ tokens${prior === 'cpu-only' ? ', and it reports a CPU-only tier' : '$'}`,
          'm',
        ),
      );

      // Under 6,144 estimated tokens the unmeasured peer keeps the ranker's place, and so gets measured.
      const small = await turn(a, 5000);
      assert.equal(small.node, nodeName('c'));
      assert.deepEqual(small.throughput?.unmeasured, []);
    },
  );
});
