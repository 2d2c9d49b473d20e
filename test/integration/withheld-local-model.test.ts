/**
 * A model this node's own engine withholds as unservable (two 5xx in five minutes, the core-4
 * load failure) is left out wherever the Hub says what it can serve, by the rule candidates use:
 * auto resolves past it to a model some node serves, /api/show on auto describes that model, and
 * /v1/models and /api/tags stop naming it. Before, auto kept resolving to the withheld model and
 * every auto request answered 502 naming a model the app never asked for, while the listings
 * went on offering it (surface audit, defects 1 and 2). The window handout leaves this node out
 * too: it no longer serves the model, so its cap says nothing about the window an app needs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, engineShow, header, listedNames as listed, POOL_API, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';

const BIG = 'big:70b'; // A's best chat model, and the one its engine fails to load
const SMALL = 'gemma3:1b'; // A's other chat model
const PEER = 'qwen3:8b'; // B's, tool-capable and 8 B: the best chat model once BIG is withheld
const TOOLS = ['completion', 'tools'];
const CORE_4_LOAD_FAILURE = '{"error":"model failed to load, this may be due to resource limitations or an internal error"}';

type L = 'a' | 'b';

describe("a model withheld on this node's own engine", () => {
  const pool = usePool<L>({
    hubs: {
      a: {
        ollama: {
          models: [
            { name: BIG, parameterSize: '70B', capabilities: TOOLS },
            { name: SMALL, parameterSize: '1B', capabilities: ['completion'] },
          ],
        },
      },
      b: { ollama: { models: [{ name: PEER, parameterSize: '8B', capabilities: TOOLS }] } },
    },
    pairs: [['a', 'b']],
  });

  it('is left out of auto, /api/show on auto and both listings, while the models the pool can serve stay', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const before = await chat(a, 'auto');
    assert.equal(before.status, 200, before.text);
    assert.equal(header(before, 'x-hub-pool-model'), BIG, 'auto starts on the best chat model in the pool');
    const first = await listed(a);
    assert.ok(first.tags.includes(BIG) && first.openai.includes(BIG), `listed while A's engine serves it: ${JSON.stringify(first)}`);

    await a.engines.ollama!.setFault({ mode: 'error', status: 500, model: BIG, body: CORE_4_LOAD_FAILURE });
    try {
      for (let i = 0; i < 2; i++) assert.notEqual((await chat(a, BIG)).status, 200);
      await eventually(async () => (await a.status()).withheld.unservable.some((w) => w.key.endsWith(`|${BIG}`)), 'A to withhold the model on its engine');

      const auto = await chat(a, 'auto');
      assert.equal(auto.status, 200, auto.text);
      assert.equal(header(auto, 'x-hub-pool-model'), PEER, 'auto resolves to the best model a node can serve');
      assert.equal(header(auto, 'x-hub-pool-served-by'), b.name);

      const shown = await post(a, '/api/show', { model: 'auto' });
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual(shown.json, await engineShow(b, PEER), 'the model described is the one the chat ran on');

      const now = await listed(a);
      assert.deepEqual(now.tags.sort(), [PEER, SMALL].sort(), '/api/tags');
      assert.deepEqual(now.openai.sort(), [PEER, SMALL].sort(), '/v1/models');
      assert.ok(!(await a.status()).models.some((m) => m.model === BIG), "status's models, what the pool can serve, drop it too");

      // Asked for by name, it is answered with why: the engine's report still lists it, healthy.
      const named = await chat(a, BIG);
      assert.equal(named.status, 502, named.text);
      const refusal = (named.json as { error: { code: string; message: string; withheld?: { backend: string; until: string; reason: string }[] } }).error;
      assert.equal(refusal.code, 'HUB_ERR_NO_CANDIDATE');
      assert.match(refusal.message, new RegExp(`ollama here holds it but withholds it until \\S+ after failing with it \\(HTTP 500\\)`));
      assert.deepEqual(
        refusal.withheld?.map((w) => [w.backend, w.reason]),
        [['ollama', 'HTTP 500']],
      );

      const handout = await a.api<{ error: { code: string } }>('GET', `${POOL_API}/handout?model=${encodeURIComponent(BIG)}`);
      assert.equal(handout.status, 404, 'no node serves the model now, so there is no window to hand out');
      assert.equal(handout.json.error.code, 'HUB_ERR_NOT_FOUND');
    } finally {
      await a.engines.ollama!.clearFaults();
    }
  });
});
