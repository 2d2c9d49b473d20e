/**
 * Issue 10 audit regressions through three real Hubs on loopback, each fronting a simulated
 * Ollama, with hub-a paired to hub-b first and hub-c second (so on a tie A's placement and its old
 * /api/show lookup both reached B first):
 * - /api/show asks the peers in ranked order, not pairing order;
 * - the listings and status leave out a model a peer says it cannot serve (unservableModels);
 * - a prompt-too-long verdict is confirmed against each node's context cap, so a walk over nodes
 *   stating the same cap stops at the second that agrees.
 *
 * The Hubs poll each other every 10 s; only the unservable case waits for a poll.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, engineShow, header, HeldRequests, listedNames, type PoolHub, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

const SHARED = 'shared:8b'; // on B and C, described differently by each (their trained windows differ)
const HOLD_B = 'hold-b:1b'; // on B only: its engine holds these, so A's forwards keep B busy
const BROKEN = 'broken:1b'; // on B only: fails to load there
const CTX = 'ctx:8b'; // on every node, each stating the same context cap
const CAP = 8192;
const CORE_4_LOAD_FAILURE = '{"error":"model failed to load, this may be due to resource limitations or an internal error"}';
const OLLAMA_CONTEXT = '{"error":"the input length exceeds the context length"}';

type L = 'a' | 'b' | 'c';

/** The listings' names, and the models status reports. */
async function listed(hub: PoolHub): Promise<{ tags: string[]; openai: string[]; status: string[] }> {
  const names = await listedNames(hub);
  return { ...names, status: (await hub.status()).models.map((m) => m.model) };
}

describe('issue 10 audit regressions across three Hubs', () => {
  const pool = usePool<L>({
    hubs: {
      a: { ollama: { models: [CTX] } },
      b: { ollama: { models: [{ name: SHARED, contextLength: 8192 }, HOLD_B, BROKEN, CTX] } },
      c: { ollama: { models: [{ name: SHARED, contextLength: 32768 }, CTX] } },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ],
    settings: { poolHealthPollSeconds: 10, inferenceMaxNumCtx: CAP },
  });

  it('/api/show asks the less busy of two peers holding the model first, not the one paired first', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b, c } = pool();
    assert.notDeepEqual(await engineShow(b, SHARED), await engineShow(c, SHARED), 'the two descriptions can be told apart');
    await b.engines.ollama!.setFault({ mode: 'hang', model: HOLD_B });
    const held = new HeldRequests(a, HOLD_B, { servedBy: b.engines.ollama! });
    try {
      await held.hold(1);
      const shown = await post(a, '/api/show', { model: SHARED });
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual(shown.json, await engineShow(c, SHARED), "C described it: B, paired first, has A's forward in flight");
    } finally {
      await held.releaseAll();
      await b.engines.ollama!.clearFaults();
    }
  });

  it('leaves a model a peer says it cannot serve out of /api/tags, /v1/models and status (the core-4 load failure)', { timeout: scaled(90_000) }, async () => {
    const { a, b } = pool();
    const first = await listed(a);
    assert.ok(
      first.tags.includes(BROKEN) && first.openai.includes(BROKEN) && first.status.includes(BROKEN),
      `listed while B serves it: ${JSON.stringify(first)}`,
    );

    // Two failures within five minutes withhold the model on B's engine; B then advertises it as unservable.
    await b.engines.ollama!.setFault({ mode: 'error', status: 500, model: BROKEN, body: CORE_4_LOAD_FAILURE });
    try {
      for (let i = 0; i < 2; i++) assert.notEqual((await chat(b, BROKEN)).status, 200);
      await eventually(async () => (await b.status()).withheld.unservable.length > 0, 'B to withhold the model');
      const after = await eventually(
        async () => {
          const now = await listed(a);
          return now.tags.includes(BROKEN) || now.openai.includes(BROKEN) || now.status.includes(BROKEN) ? null : now;
        },
        'A to leave the model out after its next poll of B',
        scaled(60_000),
      );
      assert.ok(after.tags.includes(SHARED) && after.openai.includes(SHARED), "B's other models are still listed");
      // Only routing reads the withhold: B's inventory still holds the model (its installed badge and
      // model puller read that), and the withhold travels beside it as unservableModels.
      const seen = await a.peer(b);
      assert.ok(
        seen?.backends?.some((e) => e.models.includes(BROKEN)),
        `B still publishes ${BROKEN} as held: ${JSON.stringify(seen?.backends)}`,
      );
      assert.deepEqual(seen?.unservableModels, [BROKEN]);
    } finally {
      await b.engines.ollama!.clearFaults();
    }
  });

  it('confirms a prompt over the window when the next node with the same cap agrees, and asks no node past it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b, c } = pool();
    const engines = [a, b, c].map((h) => h.engines.ollama!);
    await Promise.all(engines.map((e) => e.setFault({ mode: 'error', status: 500, model: CTX, body: OLLAMA_CONTEXT })));
    try {
      const before = engines.map((e) => e.state().requests);
      const answer = await chat(a, CTX);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(header(answer, 'x-hub-pool-upstream-status'), '500');
      const row = await a.settledRow(header(answer, 'x-hub-pool-request-id')!);
      assert.deepEqual(row.requestError, { signature: 'context-length', basis: 'confirmed', confirms: 'local' });
      const asked = engines.map((e, i) => e.state().requests - before[i]!);
      assert.equal(asked[0], 1, "A's own engine first");
      assert.equal(asked[1]! + asked[2]!, 1, `one peer agreed and the third node, stating the same cap, was never asked: ${JSON.stringify(asked)}`);
    } finally {
      await Promise.all(engines.map((e) => e.clearFaults()));
    }
  });
});
