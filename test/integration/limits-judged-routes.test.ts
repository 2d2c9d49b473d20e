/**
 * Which app routes the prompt ceiling and the context cap judge (spec, "Prompt ceilings" and
 * "Context caps"): the four chat and completion routes, in both dialects, and none of the three
 * embedding routes, whose batches of short inputs say nothing about prefill or window. Until
 * this, only /v1/chat/completions and /v1/embeddings were exercised through a Hub; the other five
 * rested on one flag each in proxy/route-table.ts that nothing checked.
 *
 * hub-a states a 1024-token ceiling and a 1024 cap; hub-b states neither, and both serve the same
 * chat and embedding models. A ~10k-token body is over both of hub-a's statements, so a judged
 * route leaves hub-a for hub-b and its row carries both records, and a route that is not judged
 * stays on hub-a, which the local head start puts first, with both records null.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { header, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const M = 'qwen3-coder:30b';
const E = 'nomic-embed-text:latest';
/** ~10k estimated tokens (40 KB at bytes / 4). */
const LONG = 'x '.repeat(20_000);
const MESSAGES = [{ role: 'user', content: LONG }];

const JUDGED: readonly { path: string; body: Record<string, unknown> }[] = [
  { path: '/v1/chat/completions', body: { model: M, messages: MESSAGES } },
  { path: '/v1/completions', body: { model: M, prompt: LONG } },
  { path: '/api/chat', body: { model: M, messages: MESSAGES, stream: false } },
  { path: '/api/generate', body: { model: M, prompt: LONG, stream: false } },
];
const NOT_JUDGED: readonly { path: string; body: Record<string, unknown> }[] = [
  { path: '/v1/embeddings', body: { model: E, input: LONG } },
  { path: '/api/embed', body: { model: E, input: LONG } },
  { path: '/api/embeddings', body: { model: E, prompt: LONG } },
];

describe('the routes a prompt ceiling and a context cap judge', () => {
  const models = [M, { name: E, capabilities: ['embedding'] }];
  const pool = usePool<'a' | 'b'>({
    hubs: {
      a: { ollama: { models }, env: { HUB_POOL_MAX_PROMPT_TOKENS: '1024' }, settings: { inferenceMaxNumCtx: 1024 } },
      b: { ollama: { models } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 300 },
  });

  for (const route of JUDGED) {
    it(`${route.path}: a long prompt leaves the node over its cap, and the row carries both judgements`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const res = await post(pool().a, route.path, route.body);
      assert.equal(res.status, 200, res.text);
      assert.equal(header(res, 'x-hub-pool-served-by'), pool().b.name);
      const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
      assert.deepEqual(row.contextCap?.excluded, [{ node: 'local', maxNumCtx: 1024 }]);
      // Judged too, though it moves nobody: the cap, the outer split, already put hub-a in a group
      // of its own, and the ceiling only splits inside groups.
      assert.ok(row.promptCeiling !== null && row.promptCeiling.estimatedTokens > 10_000, JSON.stringify(row.promptCeiling));
    });
  }

  for (const route of NOT_JUDGED) {
    it(`${route.path}: the same size stays where the ranker put it, with no ceiling or cap record`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const res = await post(pool().a, route.path, route.body);
      assert.equal(res.status, 200, res.text);
      assert.equal(header(res, 'x-hub-pool-served-by'), 'local');
      const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
      assert.equal(row.promptCeiling, null);
      assert.equal(row.contextCap, null);
    });
  }
});
