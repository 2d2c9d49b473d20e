/**
 * Recent routing on the Hub Pool page, in real Chromium against one real Hub with a simulated
 * engine: it lists the newest 25 of the rows the Hub holds, newest first, under a line that
 * counts all of them, and words a caller's hang-up as no node serving the row while still naming
 * the node that was working on it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { chat, HeldRequests, POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

const MODEL = 'm-a:1b';
/** More answered requests than the table shows (25). */
const SERVED = 30;

describe('dashboard: Recent routing', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 3 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: { ollama: { models: [MODEL] } } }, pairs: [] }), launchBrowser()]);
    for (let i = 0; i < SERVED; i++) assert.equal((await chat(pool.a, MODEL)).status, 200);
    // The newest row: the app hangs up while the engine holds its request.
    await pool.a.engines.ollama!.setFault({ mode: 'hang', model: MODEL, count: 1 });
    const held = new HeldRequests(pool.a, MODEL);
    await held.hold(1);
    await held.releaseAll();
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('shows the newest 25 rows, the hang-up first, under a count of every row the Hub holds', async () => {
    const { page, context, errors } = await openPage(browser);
    const { summary: log, entries } = (await pool.a.api<RoutingLogPage>('GET', `${POOL_API}/routing-log`)).json;
    assert.deepEqual([log.recorded, log.counts.served, log.counts.failed, log.counts.clientClosed], [SERVED + 1, SERVED, 1, 1], JSON.stringify(log));
    assert.equal(entries[0]?.stoppedReadingMs, null, 'the app closed its own connection: the Hub cut no stalled reader');

    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    await page
      .getByTestId('routing-summary')
      .getByText(
        `${SERVED} served · 1 failed (1 abandoned by the caller) · 0 failed over (of the ${SERVED + 1} decisions the Hub holds; a restart clears them)`,
      )
      .waitFor();
    const rows = page.getByTestId('recent-routing').locator('tbody tr');
    await rows.first().getByText('No node served this row (the app closed its connection while local was working on it)').waitFor();
    assert.equal(await rows.count(), 25, 'the newest 25 of 31');
    const outcomes = await rows.locator('td:nth-child(4)').allTextContents();
    assert.deepEqual(outcomes.slice(1), Array<string>(24).fill('served (200)'), 'every other row shown was served');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
