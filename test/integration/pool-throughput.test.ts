/**
 * Throughput-aware placement through real Hubs (issue 10, items 6 and 13; spec "Throughput-aware
 * placement" and "Much slower than a node as free"). Simulated Ollama engines at a time scale:
 * hub-b reads prompts fast (a GPU node), hub-c slowly (a CPU-served model, like core-7 and fzzy).
 * Each engine reports its own prompt_eval_duration, which is what the entry Hub times.
 *
 * - The core-7 CPU placements (fleet re-bank, 2026-09-30): with both nodes measured and idle, a
 *   large turn the ranker would send to the CPU node goes to the much faster one.
 * - A long prompt on a pool of one fast and one CPU-slow node goes to the fast one on the first
 *   try, from readings taken at shorter prompts, before any deadline is missed.
 * - HUB_POOL_THROUGHPUT_PLACEMENT=off keeps measuring and stops reordering;
 *   HUB_POOL_SLOWER_PLACEMENT_RATIO=1000 turns the much-slower rule off on its own.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nodeName, POOL_API, type PoolHub, post, TEST_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';
import { eventually, runCli } from '../helpers/hub-process.js';

const MODEL = 'qwen3.6:27b';
const FAST_TPS = 3000;
const SLOW_TPS = 100;
const PINS = `${POOL_API}/pins`;

/** A native chat whose prompt is about `tokens` tokens (4 characters each, as both the engine and the Hub count). */
function turn(hub: PoolHub, tokens: number) {
  return post(hub, '/api/chat', { model: MODEL, stream: false, messages: [{ role: 'user', content: 'word '.repeat(Math.floor((tokens * 4) / 5)) }] });
}

async function pin(hub: PoolHub, target: string): Promise<void> {
  const res = await hub.api('POST', PINS, { scope: 'model', model: MODEL, target });
  assert.equal(res.status, 200, JSON.stringify(res.json));
}

async function unpin(hub: PoolHub): Promise<void> {
  await hub.api('DELETE', `${PINS}?scope=model&model=${encodeURIComponent(MODEL)}`);
}

/** Times `target` on `hub` with one turn of `tokens` tokens, placed there by a pin, and returns the node that served it. */
async function measure(hub: PoolHub, target: string, tokens: number): Promise<string | null> {
  await pin(hub, target);
  try {
    const res = await turn(hub, tokens);
    assert.equal(res.status, 200, res.text.slice(0, 300));
    return (await hub.settledRow(String(res.headers['x-hub-pool-request-id']))).node;
  } finally {
    await unpin(hub);
  }
}

async function servedRow(hub: PoolHub, tokens: number) {
  const res = await turn(hub, tokens);
  assert.equal(res.status, 200, res.text.slice(0, 300));
  return hub.settledRow(String(res.headers['x-hub-pool-request-id']));
}

describe('throughput-aware placement', () => {
  const pool = usePool<'a' | 'b' | 'c'>({
    hubs: {
      // The entry node for the core-7 test: no engine of its own, starting with the knob off.
      a: { ollama: { models: ['a-only:1b'] }, env: { HUB_POOL_THROUGHPUT_PLACEMENT: 'off' } },
      b: { ollama: { models: [{ name: MODEL, prefillTps: FAST_TPS }] } },
      c: { ollama: { models: [{ name: MODEL, prefillTps: SLOW_TPS }] } },
    },
    // a pairs with c first, so its ranker lists c first among two idle peers.
    pairs: [
      ['a', 'c'],
      ['a', 'b'],
      ['c', 'b'],
    ],
    settings: { poolHealthPollSeconds: 10 },
  });

  it("HUB_POOL_THROUGHPUT_PLACEMENT=off keeps measuring and advertising, and the ranker's order stands", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a } = pool();
    assert.equal(await measure(a, nodeName('c'), 20_000), nodeName('c'));
    assert.equal(await measure(a, nodeName('b'), 20_000), nodeName('b'));
    const status = await a.status();
    const observed = (name: string) => status.peers.find((p) => p.nodeFqdn === name)?.throughput?.observed ?? [];
    assert.equal(observed(nodeName('c'))[0]?.bands[0]?.fromTokens, 16_384, 'c was timed in the 16k band');
    assert.ok(Math.abs(observed(nodeName('c'))[0]!.bands[0]!.tokensPerSec - SLOW_TPS) < SLOW_TPS * 0.2, JSON.stringify(observed(nodeName('c'))));
    assert.ok(observed(nodeName('b'))[0]!.bands[0]!.tokensPerSec > 10 * SLOW_TPS, JSON.stringify(observed(nodeName('b'))));
    const row = await servedRow(a, 30_000);
    assert.equal(row.node, nodeName('c'), "with the knob off the ranker's first node serves");
    assert.equal(row.throughput, null);
  });

  it('the core-7 placement: a large turn goes to the much faster of two idle measured nodes, and the row says why', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b, c } = pool();
    await a.restart({ HUB_POOL_THROUGHPUT_PLACEMENT: 'on' });
    await waitConnected(a, b);
    await waitConnected(a, c);
    await measure(a, nodeName('c'), 20_000);
    await measure(a, nodeName('b'), 20_000);
    const row = await servedRow(a, 30_000);
    assert.equal(row.node, nodeName('b'));
    assert.equal(row.attempt, 1);
    assert.deepEqual(
      row.throughput?.slowerDemoted.map((d) => [d.node, d.fasterNode]),
      [[nodeName('c'), nodeName('b')]],
    );
    const slow = row.throughput!.estimates.find((e) => e.node === nodeName('c'))!;
    assert.equal(slow.extrapolated, true, 'read forward from the 20k reading');
    assert.equal(slow.slow, false, 'c meets the budget: the much-slower rule, not the budget, moved it');
    const log = await runCli(['pool', 'log', '--limit', '1'], { dataDir: a.dataDir });
    assert.match(
      log.stdout,
      new RegExp(
        `↳ moved ${nodeName('c').replace(/\./g, '\\.')} \\(predicted \\d+ s, 0 in flight\\) behind ${nodeName('b').replace(/\./g, '\\.')} .*much slower than a node as free`,
      ),
    );
  });

  it('HUB_POOL_SLOWER_PLACEMENT_RATIO=1000 turns the much-slower rule off on its own', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b, c } = pool();
    await a.restart({ HUB_POOL_THROUGHPUT_PLACEMENT: 'on', HUB_POOL_SLOWER_PLACEMENT_RATIO: '1000' });
    await waitConnected(a, b);
    await waitConnected(a, c);
    await measure(a, nodeName('c'), 20_000);
    await measure(a, nodeName('b'), 20_000);
    const row = await servedRow(a, 30_000);
    assert.equal(row.node, nodeName('c'));
    assert.deepEqual(row.throughput?.slowerDemoted, []);
  });

  it('a long prompt on a pool of one fast and one CPU-slow node goes to the fast one before any deadline is missed', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { c } = pool();
    // c's own engine is the slow one, and the ranker puts it first (the local head start).
    assert.equal(await measure(c, 'local', 5000), 'local');
    assert.equal(await measure(c, nodeName('b'), 5000), nodeName('b'));
    const row = await servedRow(c, 45_000);
    assert.equal(row.node, nodeName('b'));
    assert.equal(row.attempt, 1, 'placed on the fast node first, not failed over to it');
    const local = row.throughput?.estimates.find((e) => e.node === 'local');
    assert.equal(local?.slow, true, 'local was read forward from a shorter prompt to a wait past the budget');
    assert.ok(local.fromPromptTokens < 45_000 && local.extrapolated, JSON.stringify(local));
    const rows = await c.routingLog();
    assert.deepEqual(
      rows.filter((r) => r.attempts.some((at) => at.reason.includes('No response headers'))),
      [],
      'no deadline was missed on the way',
    );
  });

  it('a peer advertises the bands its own engine was timed at, and the entry node reads them', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, c } = pool();
    const status = await eventually(
      async () => {
        const s = await a.status();
        const adv = s.peers.find((p) => p.nodeFqdn === nodeName('c'))?.throughput?.advertised;
        return adv?.[MODEL]?.bands.length ? s : null;
      },
      "a to read c's advertised bands",
      30_000,
    );
    const advert = status.peers.find((p) => p.nodeFqdn === nodeName('c'))!.throughput!.advertised![MODEL]!;
    assert.ok(
      advert.bands.every((band) => band.tokensPerSec < SLOW_TPS * 1.2),
      JSON.stringify(advert),
    );
    const own = (await c.status()).localNode.throughput?.advertised?.[MODEL];
    assert.ok(own !== undefined && own.bands.length > 0, 'c shows what it advertises');
  });

  it(
    'a decode rate is shown with its age: timed by the node itself, timed by the entry node, and as the node advertises it',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a, c } = pool();
      const timedAt = Date.now();
      assert.equal(await measure(a, nodeName('c'), 20_000), nodeName('c'));
      const own = (await c.status()).localNode.throughput!.estimates.find((e) => e.model === MODEL)!;
      // The whole test runs within its timeout, so no reading it took can be older.
      const fresh = (ageMs: number | null | undefined) => typeof ageMs === 'number' && ageMs >= 0 && ageMs <= Date.now() - timedAt + TEST_TIMEOUT_MS;
      assert.ok(own.decodeTokensPerSec !== null && fresh(own.decodeAgeMs), JSON.stringify(own));
      const advertised = await eventually(
        async () => {
          const s = await a.status();
          const m = s.peers.find((p) => p.nodeFqdn === nodeName('c'))?.throughput?.advertised?.[MODEL];
          return m?.decodeTokensPerSec != null ? m : null;
        },
        "a to read c's advertised decode rate",
        30_000,
      );
      assert.ok(fresh(advertised.decodeAgeMs), JSON.stringify(advertised));
      const timedHere = (await a.status()).peers.find((p) => p.nodeFqdn === nodeName('c'))!.throughput!.observed.find((e) => e.model === MODEL)!;
      assert.ok(timedHere.decodeTokensPerSec !== null && fresh(timedHere.decodeAgeMs), JSON.stringify(timedHere));
    },
  );
});
