/**
 * A walk that ran out, as one real Hub records it and every reader of the row tells it: the
 * candidate the walk ended on failed, but nothing was failed over from it. The routing log keeps
 * it in attempts (its reason is the row's) and out of failedOverFrom; `cihub pool log` names it
 * as the candidate that failed, `cihub pool status` counts no failover, and neither does
 * cihub_failovers_total.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { runCli } from '../helpers/hub-process.js';
import { chat, POOL_API, START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const MODEL = 'm-a:1b';

describe('a walk whose only candidate failed', () => {
  const pool = usePool({ hubs: { a: { ollama: { models: [MODEL] } } }, pairs: [] });
  before(
    async () => {
      await pool().a.engines.ollama!.setFault({ mode: 'error', status: 503, count: 1, model: MODEL });
      assert.equal((await chat(pool().a, MODEL)).status, 502);
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('is recorded with the candidate in attempts and not in failedOverFrom', { timeout: TEST_TIMEOUT_MS }, async () => {
    const page = (await pool().a.api<RoutingLogPage>('GET', `${POOL_API}/routing-log`)).json;
    assert.equal(page.entries.length, 1);
    const row = page.entries[0]!;
    assert.equal(row.outcome, 'failed');
    assert.deepEqual(row.failedOverFrom, []);
    assert.deepEqual(
      row.attempts.map((a) => [a.node, a.status]),
      [['local', 503]],
    );
    assert.equal(page.summary.counts.failedOver, 0);
  });

  it('reads in `cihub pool log` as its only candidate failing, with no failover', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runCli(['pool', 'log'], { dataDir: pool().a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /failed over from/);
    assert.ok(run.stdout.includes('↳ its only candidate failed: local (ollama): HTTP 503'), run.stdout);
  });

  it('counts no failover in `cihub pool status` or in /metrics', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runCli(['pool', 'status'], { dataDir: pool().a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Recent routing: 0 served · 1 failed · 0 failed over$/m);
    const res = await request(`${pool().a.url}/metrics`, { headers: { authorization: `Bearer ${pool().a.process.operatorKey}` } });
    const text = await res.body.text();
    assert.equal(res.statusCode, 200, text);
    assert.match(text, /^cihub_requests_total\{direction="outbound",route="\/v1\/chat\/completions",outcome="failed",node="none",backend="none"\} 1$/m);
    assert.doesNotMatch(text, /^cihub_failovers_total\{/m);
  });
});
