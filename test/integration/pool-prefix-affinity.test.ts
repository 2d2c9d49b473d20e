/**
 * Prefix affinity through two real Hubs (issue 10, item 8), and the incident it must not repeat:
 * "herded sessions on core-2" (spec, Prefix affinity, 2026-09-21). Six concurrent agent sessions
 * shared one byte-identical system prompt longer than 4 KB and differed only in their first user
 * message. A digest of the first 4 KB keyed them together: every first turn logged a hit on a node
 * that had never served it, and once two sessions were moved to core-1 the shared entry flipped
 * and the sessions still warm on core-2 followed it there cold.
 *
 * Here hub-a plays core-2 (the entry node) and hub-b core-1; both hold the model. Hub-a's own
 * engine is made busy with held requests so that two sessions are ranked onto hub-b, exactly
 * as slot awareness moved them on the fleet.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { header, HeldRequests, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Answer, type Pool } from '../helpers/pool-fixture.js';

const MODEL = 'agent:8b';
const HOLD = 'hold:1b'; // on hub-a only: the engine never answers it, so held requests keep hub-a's engine busy
/** One byte-identical system prompt, well past the 4 KB window the herding build read. */
const SYSTEM = { role: 'system', content: 'You are a coding agent working in a large repository. '.repeat(200) };

type L = 'a' | 'b';

const firstTurn = (session: string) => [SYSTEM, { role: 'user', content: `task ${session}` }];
const secondTurn = (session: string) => [...firstTurn(session), { role: 'assistant', content: 'done' }, { role: 'user', content: 'next step' }];

describe('prefix affinity across two Hubs', () => {
  let pool: Pool<L>;
  let held: HeldRequests;

  before(
    async () => {
      pool = await startPool<L>({
        hubs: {
          a: { ollama: { models: [MODEL, HOLD], keepAliveMs: -1 } },
          b: { ollama: { models: [MODEL], keepAliveMs: -1 } },
        },
        pairs: [['a', 'b']],
        settings: { poolHealthPollSeconds: 300 },
      });
      await pool.a.engines.ollama!.setFault({ mode: 'hang', model: HOLD });
      held = new HeldRequests(pool.a, HOLD);
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      await held?.releaseAll();
      await pool?.stop();
    },
    { timeout: START_TIMEOUT_MS },
  );

  const send = (messages: unknown[], extraHeaders: Record<string, string> = {}) => postWith(pool.a, messages, extraHeaders);

  async function rowOf(answer: Answer) {
    const id = header(answer, 'x-hub-pool-request-id');
    assert.ok(id, 'the answer names its routing-log row');
    return pool.a.settledRow(id);
  }

  it('at the default limit 0 nothing is judged: no header, a null record, and ranking as before', { timeout: TEST_TIMEOUT_MS }, async () => {
    await pool.a.patchSettings({ poolPrefixAffinityMaxInFlight: 0, poolPrefixAffinityMargin: 3 });
    const answer = await send(firstTurn('control'));
    assert.equal(answer.status, 200);
    assert.equal(header(answer, 'x-hub-pool-affinity'), null);
    assert.equal(header(answer, 'x-hub-pool-served-by'), 'local');
    assert.equal((await rowOf(answer)).affinity, null);
  });

  it(
    'herded sessions on core-2: sessions sharing a long system prompt are keyed apart, and warm ones stay where they are',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      await pool.a.patchSettings({ poolPrefixAffinityMaxInFlight: 8, poolPrefixAffinityMargin: 0 });
      // Four sessions' first turns land on hub-a's idle engine. None has been served before, so each is a miss.
      for (const s of ['s1', 's2', 's3', 's4']) {
        const answer = await send(firstTurn(s));
        assert.equal(header(answer, 'x-hub-pool-served-by'), 'local');
        assert.equal(header(answer, 'x-hub-pool-affinity'), 'miss', `${s}'s first turn was served nowhere before`);
        const row = await rowOf(answer);
        assert.equal(row.affinity?.outcome, 'miss');
        assert.equal(row.affinity?.key, 'hashed');
      }
      // hub-a's engine gets busy: the next two sessions are ranked onto hub-b (core-1).
      await held.hold(2);
      for (const s of ['s5', 's6']) {
        const answer = await send(firstTurn(s));
        assert.equal(header(answer, 'x-hub-pool-served-by'), pool.b.name);
        assert.equal(header(answer, 'x-hub-pool-affinity'), 'miss');
      }
      await held.releaseAll();
      // The sessions warm on hub-a stay there: the shared prefix did not flip them to hub-b.
      for (const s of ['s1', 's2', 's3', 's4']) {
        const answer = await send(secondTurn(s));
        assert.equal(header(answer, 'x-hub-pool-served-by'), 'local', `${s} stays on the node holding its prefix`);
        const row = await rowOf(answer);
        assert.deepEqual([row.affinity?.outcome, row.affinity?.remembered], ['hit', 'local']);
      }
      // And a session warm on hub-b follows to hub-b, although the ranker alone would pick hub-a's idle engine.
      const moved = await send(secondTurn('s5'));
      assert.equal(header(moved, 'x-hub-pool-served-by'), pool.b.name);
      assert.equal(header(moved, 'x-hub-pool-affinity'), 'hit');
      const row = await rowOf(moved);
      assert.deepEqual([row.affinity?.outcome, row.affinity?.qualified, row.affinity?.remembered, row.affinity?.maxInFlight], ['hit', true, pool.b.name, 8]);
      const keyText = JSON.stringify(row);
      assert.ok(!keyText.includes('task s5') && !/[0-9a-f]{64}/.test(keyText), 'the row carries neither the prompt nor the key');
    },
  );

  it('a session named with X-Hub-Pool-Session follows its node whatever its prompt, and the row says header', { timeout: TEST_TIMEOUT_MS }, async () => {
    await pool.a.patchSettings({ poolPrefixAffinityMaxInFlight: 2 });
    await held.hold(2);
    const first = await send([{ role: 'user', content: 'one' }], { 'x-hub-pool-session': 'run-42' });
    assert.equal(header(first, 'x-hub-pool-served-by'), pool.b.name);
    await held.releaseAll();
    const second = await send([{ role: 'user', content: 'a different prompt entirely' }], { 'x-hub-pool-session': 'run-42' });
    assert.equal(header(second, 'x-hub-pool-served-by'), pool.b.name);
    const row = await rowOf(second);
    assert.deepEqual([row.affinity?.outcome, row.affinity?.key], ['hit', 'header']);
  });

  it('poolPrefixAffinityMargin is a setting: at limit 1 a remembered engine one deep is kept only with a margin', { timeout: TEST_TIMEOUT_MS }, async () => {
    // Session m is remembered on hub-a's engine, then hub-a's engine holds one request.
    await pool.a.patchSettings({ poolPrefixAffinityMaxInFlight: 1, poolPrefixAffinityMargin: 0, poolLocalAffinity: 0 });
    try {
      assert.equal(header(await send(firstTurn('m')), 'x-hub-pool-served-by'), 'local');
      await held.hold(1);
      const without = await send(secondTurn('m'));
      assert.equal(header(without, 'x-hub-pool-served-by'), pool.b.name, 'at margin 0 a queue at the limit hands on');
      assert.deepEqual([(await rowOf(without)).affinity?.outcome, (await rowOf(without)).affinity?.qualified], ['skipped', false]);
      // The skipped call was placed on hub-b, so the session is remembered there now: place it back on hub-a.
      await held.releaseAll();
      assert.equal(header(await send(firstTurn('m2')), 'x-hub-pool-served-by'), 'local');
      await held.hold(1);
      await pool.a.patchSettings({ poolPrefixAffinityMargin: 1 });
      const within = await send(secondTurn('m2'));
      assert.equal(header(within, 'x-hub-pool-served-by'), 'local', 'one deeper than an idle hub-b is within a margin of 1');
      const row = await rowOf(within);
      assert.deepEqual([row.affinity?.outcome, row.affinity?.qualified, row.affinity?.leastLoadedInFlight, row.affinity?.affinityMargin], ['hit', true, 0, 1]);
    } finally {
      await held.releaseAll();
      await pool.a.patchSettings({ poolLocalAffinity: 1, poolPrefixAffinityMargin: 0 });
    }
  });
});

async function postWith(hub: Pool<L>['a'], messages: unknown[], extraHeaders: Record<string, string>): Promise<Answer> {
  const { request } = await import('undici');
  const res = await request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...extraHeaders },
    body: JSON.stringify({ model: MODEL, messages }),
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers as Answer['headers'], text, json: text ? JSON.parse(text) : null };
}
