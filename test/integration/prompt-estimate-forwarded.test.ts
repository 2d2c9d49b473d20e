/**
 * The prompt estimate the ceiling and the cap judge (spec, "Prompt ceilings": bytes / 4 of the
 * payload the proxy forwards, the figure the first-byte budget is sized from). When an app asks
 * for auto, the Hub forwards a body naming the model auto resolved to, so the estimate is of that
 * body, not of the one the app sent. The integration tests so far only bounded the estimate
 * loosely; this pins it to the byte.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { header, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const M = 'qwen3-coder:30b';
const MESSAGES = [{ role: 'user', content: 'x '.repeat(3000) }];

describe('the prompt estimate in the routing log', () => {
  // A ceiling on the one node, so each row carries a promptCeiling record with the estimate.
  const pool = usePool<'a'>({ hubs: { a: { ollama: { models: [M] }, env: { HUB_POOL_MAX_PROMPT_TOKENS: '1024' } } }, pairs: [] });

  const estimateOf = async (body: Record<string, unknown>) => {
    const res = await post(pool().a, '/v1/chat/completions', body);
    assert.equal(res.status, 200, res.text);
    const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
    assert.ok(row.promptCeiling, 'a node with a ceiling was a candidate');
    return row.promptCeiling.estimatedTokens;
  };

  it('is the forwarded body length over 4, rounded up', { timeout: TEST_TIMEOUT_MS }, async () => {
    const body = { model: M, messages: MESSAGES };
    assert.equal(await estimateOf(body), Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 4));
  });

  it('for auto, is taken from the body naming the resolved model, which is what the engine receives', { timeout: TEST_TIMEOUT_MS }, async () => {
    const forwarded = Buffer.byteLength(JSON.stringify({ model: M, messages: MESSAGES }));
    const sent = Buffer.byteLength(JSON.stringify({ model: 'auto', messages: MESSAGES }));
    assert.notEqual(Math.ceil(forwarded / 4), Math.ceil(sent / 4), 'the two bodies must estimate differently for this to tell them apart');
    assert.equal(await estimateOf({ model: 'auto', messages: MESSAGES }), Math.ceil(forwarded / 4));
  });
});
