/**
 * Verdicts on the request across a pool hop (spec, "A request no node can serve"): a refusal a
 * peer relays counts as the engine kind the peer names having refused, so the walk stops once no
 * candidate ahead runs a kind that has not refused, as it does for this node's own engines.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, nodeName, POOL_API, START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const MODEL = 'qwen3:8b-verdict';
const LLAMA_MISSING_CONTENT = '{"error":{"code":500,"message":"Missing \'content\' in message","type":"server_error"}}';

describe("a malformed-message refusal a peer's engine gave", { timeout: TEST_TIMEOUT_MS }, () => {
  // Hub a holds the model on an Ollama and a vLLM; hub b on a vLLM only.
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: [MODEL] }, vllm: { models: [MODEL] } }, b: { vllm: { models: [MODEL] } } },
    pairs: [['a', 'b']],
  });
  before(
    async () => {
      // The pin puts b first: [b (its vLLM), local Ollama, local vLLM].
      const pinned = await pool().a.api('POST', `${POOL_API}/pins`, { scope: 'model', model: MODEL, target: nodeName('b') });
      assert.equal(pinned.status, 200, JSON.stringify(pinned.json));
    },
    { timeout: START_TIMEOUT_MS },
  );

  it("counts as the peer's vLLM having refused: confirmed by the local Ollama, the local vLLM behind them is not asked", async () => {
    const refusing = [pool().b.engines.vllm!, pool().a.engines.ollama!];
    await Promise.all(refusing.map((e) => e.setFault({ mode: 'error', status: 500, body: LLAMA_MISSING_CONTENT, model: MODEL })));
    const localVllm = pool().a.engines.vllm!;
    const asked = localVllm.state().requests;

    const res = await chat(pool().a, MODEL);
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /Missing 'content' in message/);
    assert.equal(localVllm.state().requests - asked, 0, 'vLLM has refused already, on b');
    const row = await pool().a.settledRow(String(res.headers['x-hub-pool-request-id']));
    assert.deepEqual(row.requestError, { signature: 'invalid-message', basis: 'confirmed', confirms: nodeName('b') });
    assert.deepEqual(
      row.attempts.map((x) => [x.node, x.backend, x.reason]),
      [[nodeName('b'), 'vllm', 'HTTP 500 (invalid-message)']],
    );
  });
});
