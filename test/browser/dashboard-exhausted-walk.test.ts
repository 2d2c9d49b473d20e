/**
 * A walk that ran out, in real Chromium against one real Hub whose two engines both serve the
 * model and both answer 503: Recent routing and the Logs view say the walk failed over from the
 * first engine only, and name the second, where it ran out, as the last candidate tried.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { chat, POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink, type WatchedPage } from './browser.js';

const MODEL = 'm-a:1b';
const RAN_OUT = 'No node served this row (the last candidate tried, local, failed)';
/** Both candidates are this node's: the engine tells them apart. */
const FAILED_OVER = 'Failed over from local (ollama): HTTP 503';

describe('dashboard: a walk that ran out', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 3 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  let watched: WatchedPage;

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: { ollama: { models: [MODEL] }, vllm: { models: [MODEL] } } }, pairs: [] }), launchBrowser()]);
    for (const engine of [pool.a.engines.ollama!, pool.a.engines.vllm!]) await engine.setFault({ mode: 'error', status: 503, count: 1, model: MODEL });
    assert.equal((await chat(pool.a, MODEL)).status, 502);
    const row = (await pool.a.api<RoutingLogPage>('GET', `${POOL_API}/routing-log`)).json.entries[0]!;
    assert.deepEqual([row.failedOverFrom.length, row.attempts.length], [1, 2], 'the Hub recorded one failover and two failed attempts');
    watched = await openPage(browser);
    await signInByLink(watched.page, pool.a.process);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('Recent routing names one failover and the candidate the walk ended on', async () => {
    const page = watched.page;
    await gotoPool(page);
    const row = page.getByTestId('recent-routing').locator('tbody tr').first();
    await row.getByText(RAN_OUT).waitFor();
    assert.equal(await row.getByText(FAILED_OVER, { exact: true }).count(), 1, await row.innerText());
  });

  it('the Logs view words it the same way', async () => {
    const page = watched.page;
    await page.getByRole('link', { name: 'Logs' }).click();
    const log = page.locator('section[aria-labelledby="log-title"]');
    await log.getByText(RAN_OUT).waitFor();
    assert.equal(await log.getByText(FAILED_OVER, { exact: true }).count(), 1, await log.innerText());
  });
});
