/**
 * The routing-log fields that describe the request itself (stream, bodyBytes, budgetMs) and the
 * status fields that count forwards in flight, read from two real Hubs: each value is checked
 * against what the test sent, on the entry Hub's outbound row and on the serving peer's inbound
 * row joined by X-Hub-Pool-Request-Id, and then as `cihub pool status` prints it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, runCli } from '../helpers/hub-process.js';
import { HeldRequests, header, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const LOCAL = 'qwen3:8b'; // on A only
const REMOTE = 'llama3.2:3b'; // on B only
const HELD = 'hold:1b'; // on B only, hung there by the held-requests test

/** Defaults the Hubs run with: HUB_POOL_FIRST_BYTE_TIMEOUT_MS and HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC. */
const FIRST_BYTE_TIMEOUT_MS = 300_000;
const MIN_PREFILL_TOKENS_PER_SEC = 50;

/** A chat body whose UTF-8 size differs from its length in characters (é is two bytes). */
function chatBody(model: string, chars: number, extra: Record<string, unknown> = {}): { json: Record<string, unknown>; bytes: number } {
  const json = { model, messages: [{ role: 'user', content: 'é'.repeat(chars) }], ...extra };
  return { json, bytes: Buffer.byteLength(JSON.stringify(json), 'utf8') };
}

describe('routing-log request fields and forwards in flight, on a real pool', () => {
  const pool = usePool({
    hubs: {
      a: { ollama: { models: [LOCAL] } },
      b: { ollama: { models: [REMOTE, HELD] } },
    },
    pairs: [['a', 'b']],
  });

  it(
    '/api/chat with no stream field is logged as streamed, with the body size in UTF-8 bytes and the default budget',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a } = pool();
      const body = chatBody(LOCAL, 100);
      assert.notEqual(body.bytes, JSON.stringify(body.json).length, 'the body has multi-byte characters');
      const answer = await post(a, '/api/chat', body.json);
      assert.equal(answer.status, 200, answer.text);
      const row = await a.settledRow(header(answer, 'x-hub-pool-request-id')!);
      assert.deepEqual(
        { stream: row.stream, bodyBytes: row.bodyBytes, budgetMs: row.budgetMs },
        { stream: true, bodyBytes: body.bytes, budgetMs: FIRST_BYTE_TIMEOUT_MS },
      );
    },
  );

  it('an OpenAI chat with no stream field is logged as not streamed', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a } = pool();
    const body = chatBody(LOCAL, 10);
    const answer = await post(a, '/v1/chat/completions', body.json);
    assert.equal(answer.status, 200, answer.text);
    const row = await a.settledRow(header(answer, 'x-hub-pool-request-id')!);
    assert.deepEqual({ stream: row.stream, bodyBytes: row.bodyBytes }, { stream: false, bodyBytes: body.bytes });
  });

  it('a prompt past the budget floor gets a longer budget, the same on both rows of a forwarded call', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    // 40,000 two-byte characters: ~80 KB, ~20,000 estimated tokens, 400 s at 50 tokens/s.
    const body = chatBody(REMOTE, 40_000, { stream: false });
    const expectedBudget = Math.max(FIRST_BYTE_TIMEOUT_MS, Math.ceil((body.bytes / 4 / MIN_PREFILL_TOKENS_PER_SEC) * 1000));
    assert.ok(expectedBudget > FIRST_BYTE_TIMEOUT_MS, 'the prompt is long enough to lift the budget');
    const answer = await post(a, '/api/chat', body.json);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(header(answer, 'x-hub-pool-served-by'), b.name);
    const id = header(answer, 'x-hub-pool-request-id')!;
    const outbound = await a.settledRow(id);
    const inbound = await b.settledRow(id);
    const fields = (r: typeof outbound) => ({ direction: r.direction, stream: r.stream, bodyBytes: r.bodyBytes, budgetMs: r.budgetMs });
    assert.deepEqual(fields(outbound), { direction: 'outbound', stream: false, bodyBytes: body.bytes, budgetMs: expectedBudget });
    assert.deepEqual(fields(inbound), { direction: 'inbound', stream: false, bodyBytes: body.bytes, budgetMs: expectedBudget });
  });

  it('counts the requests forwarded to a peer and not yet answered, in status and in `cihub pool status`', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await b.engines.ollama!.setFault({ mode: 'hang', model: HELD });
    const held = new HeldRequests(a, HELD, { servedBy: b.engines.ollama! });
    try {
      await held.hold(2);
      const row = (await a.status()).peers.find((p) => p.nodeFqdn === b.name);
      assert.equal(row?.forwardedInFlight, 2, JSON.stringify(row));
      const run = await runCli(['pool', 'status'], { dataDir: a.dataDir });
      assert.equal(run.code, 0, run.stderr);
      const line = run.stdout.split('\n').find((l) => l.trimStart().startsWith(b.name));
      assert.match(line ?? '', /, 2 forwarded from here\b/, run.stdout);
    } finally {
      await held.releaseAll();
      await b.engines.ollama!.clearFaults();
    }
    await eventually(async () => (await a.status()).peers.every((p) => p.forwardedInFlight === 0), 'the released forwards to be counted out');
  });
});
