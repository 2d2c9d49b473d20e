/**
 * A failover is told twice: once in the routing-log row's attempts, and once as a line in the
 * Hub's own log naming the node passed over, its status and the reason. Both say the reason in
 * the Hub's words, never the engine's message, which can quote the prompt. Until this test the
 * line was only read for its traceId (tracing.test.ts).
 */
import { describe, it } from 'node:test';
import type { PoolHub } from '../helpers/pool-fixture.js';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/hub-process.js';
import { chat, header, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const MODEL = 'qwen3:8b'; // on both Hubs; A's own engine goes first (poolLocalAffinity 1)
// Its own model: two 503s from one engine within minutes withhold that model there.
const EXHAUSTED_MODEL = 'llama3.2:3b';
const ENGINE_MESSAGE = 'engine-says-something-private';

describe('the log line a failover writes', () => {
  const pool = usePool({
    hubs: { a: { ollama: { models: [MODEL, EXHAUSTED_MODEL] } }, b: { ollama: { models: [MODEL, EXHAUSTED_MODEL] } } },
    pairs: [['a', 'b']],
  });

  it('is one line per passed-over node, with its node, backend, status and reason, matching the row', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await a.engines.ollama!.setFault({ mode: 'error', status: 503, model: MODEL, count: 1, body: JSON.stringify({ error: ENGINE_MESSAGE }) });
    const answer = await chat(a, MODEL);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(header(answer, 'x-hub-pool-served-by'), b.name);
    const id = header(answer, 'x-hub-pool-request-id')!;

    const row = await a.settledRow(id);
    assert.deepEqual(row.failedOverFrom, ['local']);
    assert.deepEqual(row.attempts, [{ node: 'local', backend: 'ollama', status: 503, reason: 'HTTP 503' }]);

    const lines = await eventually(() => {
      const found = a
        .log()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.requestId === id && l.msg === 'failed over from a candidate');
      return found.length > 0 ? found : null;
    }, "A's failover line");
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const { node, backend, status, reason } = lines[0]!;
    assert.deepEqual({ node, backend, status, reason }, row.attempts[0]);
    assert.ok(!a.log().includes(ENGINE_MESSAGE), "the engine's message is not in the Hub's log");
    assert.ok(!JSON.stringify(row).includes(ENGINE_MESSAGE), "the engine's message is not on the row");
  });

  it('is not written for the last candidate, whose failure ended the walk: that one gets a line of its own', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await a.engines.ollama!.setFault({ mode: 'error', status: 503, model: EXHAUSTED_MODEL, count: 1 });
    await b.engines.ollama!.setFault({ mode: 'error', status: 503, model: EXHAUSTED_MODEL, count: 1 });
    const answer = await chat(a, EXHAUSTED_MODEL);
    assert.equal(answer.status, 502, answer.text);
    const id = header(answer, 'x-hub-pool-request-id')!;

    const row = await a.settledRow(id);
    assert.deepEqual(row.failedOverFrom, ['local']);
    assert.deepEqual(
      row.attempts.map((t) => [t.node, t.status]),
      [
        ['local', 503],
        [b.name, 502],
      ],
    );

    const aLines = await eventually(() => {
      const found = linesOf(a, id);
      return found.length >= 2 ? found : null;
    }, "A's lines for both candidates");
    assert.deepEqual(
      aLines.map((l) => [l.msg, l.node, l.status]),
      [
        ['failed over from a candidate', 'local', 503],
        ['the last candidate failed: no candidate left to try', b.name, 502],
      ],
    );
    // B's walk had one candidate, its own engine: it ran out without moving on.
    const bLines = await eventually(() => {
      const found = linesOf(b, id);
      return found.length >= 1 ? found : null;
    }, "B's line for its engine");
    assert.deepEqual(
      bLines.map((l) => [l.msg, l.node, l.status]),
      [['the last candidate failed: no candidate left to try', 'local', 503]],
    );
  });
});

/** The walk's lines about one request's candidates, in the order they were written. */
function linesOf(hub: PoolHub, requestId: string): Record<string, unknown>[] {
  return hub
    .log()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.requestId === requestId && typeof l.msg === 'string' && 'reason' in l && 'node' in l);
}
