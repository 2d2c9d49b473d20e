/**
 * The residency read behind prefix affinity's hold over contention, through real Hubs (spec,
 * "Local engine contention", "Except the engine a session's prefix is warm on"). The hold asks
 * the engine whether the session's model is still resident (Ollama's /api/ps) only when
 * contention could move the engine at all: contention is on and a peer it does not withhold can
 * take the request. Otherwise the engine keeps its place whatever the answer, and the read only
 * spent up to the 500 ms placement budget on every such turn (an audit measured +505 ms per turn
 * with HUB_POOL_CONTENTION_PLACEMENT=off).
 *
 * hub-a's Ollama holds the session's model, a model no peer holds, and OpenClaw's model; hub-b's
 * holds the session's model only. A session is placed on hub-a first, so affinity remembers
 * hub-a's engine; then an OpenClaw turn held open there (the simulator's hang fault) makes the
 * engine contended, and the session's next call is the one affinity would hold. The simulator
 * counts the /api/ps reads it receives.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { header, HeldRequests, type PoolHub, type SimEngine, TEST_TIMEOUT_MS, usePool, waitConnected, type Answer } from '../helpers/pool-fixture.js';
import { scaled } from '../helpers/time-scale.js';

const HERMES = 'qwen3.6:35b';
const OPENCLAW = 'qwen3.8:27b';
/** On hub-a only: a session for it has no peer to be moved to. */
const LOCAL_ONLY = 'gemma3:12b';

/** GETs of /api/ps the engine has received: the Hub's Ollama residency read. */
const residencyReads = (engine: SimEngine): number => engine.state().requestsByPath['/api/ps'] ?? 0;

/** One call of a session the app names, for `model`, on the native chat route. */
async function sessionCall(hub: PoolHub, session: string, model: string): Promise<Answer> {
  const res = await request(`${hub.pool}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-pool-session': session },
    body: JSON.stringify({ model, stream: false, options: { num_ctx: 65536 }, messages: [{ role: 'user', content: 'next step' }] }),
    headersTimeout: scaled(20_000),
    bodyTimeout: scaled(20_000),
  });
  const text = await res.body.text();
  assert.equal(res.statusCode, 200, text.slice(0, 300));
  return { status: res.statusCode, headers: res.headers as Answer['headers'], text, json: JSON.parse(text) };
}

describe("prefix affinity's hold reads residency only when contention could move the engine", () => {
  const pool = usePool<'a' | 'b'>({
    hubs: {
      // Never unloaded, so the session's model stays resident on hub-a's engine between calls.
      a: { ollama: { models: [HERMES, OPENCLAW, LOCAL_ONLY], keepAliveMs: -1 } },
      b: { ollama: { models: [HERMES], keepAliveMs: -1 } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 10, poolPrefixAffinityMaxInFlight: 2 },
  });

  /**
   * Places the session on hub-a's idle engine, then holds an OpenClaw turn open there and makes
   * the session's next call: the call affinity would hold. Answers that call's routing-log row
   * and how many /api/ps reads hub-a's engine received while it was placed and served.
   */
  async function heldCall(session: string, model: string) {
    const { a } = pool();
    const engine = a.engines.ollama!;
    const first = await sessionCall(a, session, model);
    assert.equal(header(first, 'x-hub-pool-served-by'), 'local', "the session's first call lands on hub-a's idle engine");
    await engine.setFault({ mode: 'hang', model: OPENCLAW });
    const held = new HeldRequests(a, OPENCLAW);
    try {
      await held.hold(1);
      const before = residencyReads(engine);
      const answer = await sessionCall(a, session, model);
      const reads = residencyReads(engine) - before;
      const row = await a.settledRow(String(header(answer, 'x-hub-pool-request-id')));
      return { row, reads };
    } finally {
      await held.releaseAll();
      await engine.clearFaults();
    }
  }

  // The control for the two below: the read they leave out is the one made here.
  it(
    'contention on, with a peer that can take the turn: the hold reads residency once, and the resident prefix keeps the session local',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { row, reads } = await heldCall('run-peer', HERMES);
      assert.equal(reads, 1, 'one /api/ps read before placing');
      assert.equal(row.node, 'local');
      assert.equal(row.affinity?.outcome, 'hit');
      assert.deepEqual(
        row.contention?.demoted.map((d) => [d.node, d.behind, d.overriddenBy]),
        [['local', [], 'affinity']],
        'contention would have moved the engine behind hub-b, and affinity held it',
      );
    },
  );

  it('contention on, but no peer holds the model: nothing to give way to, so no residency read', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { row, reads } = await heldCall('run-alone', LOCAL_ONLY);
    assert.equal(reads, 0, 'no /api/ps read');
    assert.equal(row.node, 'local');
    assert.equal(row.affinity?.outcome, 'hit');
    assert.equal(row.contention, null);
  });

  // From here hub-a runs with contention off: keep this test last.
  it('HUB_POOL_CONTENTION_PLACEMENT=off: the held call makes no residency read, though a peer could take it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await a.restart({ HUB_POOL_CONTENTION_PLACEMENT: 'off' });
    await waitConnected(a, b);
    const { row, reads } = await heldCall('run-off', HERMES);
    assert.equal(reads, 0, 'no /api/ps read');
    assert.equal(row.node, 'local');
    assert.equal(row.affinity?.outcome, 'hit');
    assert.equal(row.contention, null);
  });
});
