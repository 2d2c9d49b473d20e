/**
 * A model one engine of a peer withholds while another engine there still lists it, through two
 * real Hubs on loopback: hub-b runs an Ollama and a vLLM that both hold the model, and its Ollama
 * fails to load it (the core-4 failure). B can still serve the model in the OpenAI dialect, on its
 * vLLM, so its node-wide unservableModels stays empty; what tells hub-a that B's native route is
 * gone is the engine's own entry in B's capabilities.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, header, listedNames, post, usePool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

const SPLIT = 'split:8b'; // on B's Ollama and B's vLLM
const OWN = 'own:1b'; // A's own, so A's listings are never empty
const CORE_4_LOAD_FAILURE = '{"error":"model failed to load, this may be due to resource limitations or an internal error"}';

describe('a model withheld on one engine of a peer and listed by another', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: [OWN] } }, b: { ollama: { models: [SPLIT] }, vllm: { models: [SPLIT] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 10 },
  });

  it("drops the model from the peer's native offer only, and keeps sending OpenAI requests for it there", { timeout: scaled(90_000) }, async () => {
    const { a, b } = pool();
    const before = await listedNames(a);
    assert.ok(before.tags.includes(SPLIT) && before.openai.includes(SPLIT), `listed while B serves it both ways: ${JSON.stringify(before)}`);

    await b.engines.ollama!.setFault({ mode: 'error', status: 500, model: SPLIT, body: CORE_4_LOAD_FAILURE });
    try {
      // Native requests reach only B's Ollama: two failures within five minutes withhold the model there.
      for (let i = 0; i < 2; i++)
        assert.notEqual((await post(b, '/api/chat', { model: SPLIT, messages: [{ role: 'user', content: 'hi' }], stream: false })).status, 200);
      await eventually(async () => (await b.status()).withheld.unservable.some((w) => w.key.endsWith(`|${SPLIT}`)), 'B to withhold the model on its Ollama');

      const after = await eventually(
        async () => {
          const now = await listedNames(a);
          return now.tags.includes(SPLIT) ? null : now;
        },
        'A to leave the model out of /api/tags after its next poll of B',
        scaled(60_000),
      );
      assert.ok(after.openai.includes(SPLIT), `B's vLLM still serves it in the OpenAI dialect: ${JSON.stringify(after)}`);
      const seen = await a.peer(b);
      assert.equal(seen?.unservableModels?.length ?? 0, 0, 'B can serve the model, so it names nothing node-wide');
      assert.ok(
        seen?.backends?.every((e) => e.models.includes(SPLIT)),
        `both engines still publish the model as on their disks: ${JSON.stringify(seen?.backends)}`,
      );

      const ollamaAsked = b.engines.ollama!.state().requests;
      const served = await chat(a, SPLIT);
      assert.equal(served.status, 200, served.text);
      assert.equal(header(served, 'x-hub-pool-served-by'), b.name);
      assert.equal(header(served, 'x-hub-pool-backend'), 'vllm');

      const native = await post(a, '/api/chat', { model: SPLIT, messages: [{ role: 'user', content: 'hi' }], stream: false });
      assert.notEqual(native.status, 200, 'no engine A can reach serves the model natively');
      assert.equal(b.engines.ollama!.state().requests, ollamaAsked, "nothing was sent on to B's Ollama");
    } finally {
      await b.engines.ollama!.clearFaults();
    }
  });
});
