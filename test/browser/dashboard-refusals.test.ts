/**
 * A request an engine refused as bad, in real Chromium against one real Hub whose simulated
 * engine is told to refuse: the dashboard names it refused (with the engine's signature when it
 * has one) instead of a node failing, and every count of failures says how many were refusals.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { chat, POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink, type WatchedPage } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

const MODEL = 'm-a:1b';
/** Ollama's own wording for a turn with no user message, which the Hub sorts under no-user-query. */
const NO_USER_QUERY_BODY = JSON.stringify({ error: 'no user query found in messages' });

interface Row {
  readonly id: string;
  readonly outcome: string;
  readonly status: number | null;
  readonly requestError: { readonly signature: string } | null;
}

describe('dashboard: a request an engine refused is named refused, not a node failure', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 4 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  let watched: WatchedPage;
  const rows = async () => (await pool.a.api<{ entries: Row[] }>('GET', `${POOL_API}/routing-log`)).json.entries;

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: { ollama: { models: [MODEL] } } }, pairs: [] }), launchBrowser()]);
    const engine = pool.a.engines.ollama!;
    assert.equal((await chat(pool.a, MODEL)).status, 200);
    await engine.setFault({ mode: 'error', status: 400, count: 1, model: MODEL });
    assert.equal((await chat(pool.a, MODEL)).status, 400);
    await engine.setFault({ mode: 'error', status: 500, body: NO_USER_QUERY_BODY, count: 1, model: MODEL });
    assert.equal((await chat(pool.a, MODEL)).status, 400, 'a definitive verdict goes to the app as the request’s fault');
    const signatures = (await rows()).map((r) => r.requestError?.signature ?? null).sort();
    assert.deepEqual(signatures, ['client-error', 'no-user-query', null], 'the Hub recorded two refusals and one answer');
    watched = await openPage(browser);
    await signInByLink(watched.page, pool.a.process);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('Recent routing names each refusal and its signature, and its counts split the refusals out of failed', async () => {
    const page = watched.page;
    await gotoPool(page);
    const table = page.getByTestId('recent-routing');
    const plain = table.locator('tr', { hasText: 'refused by local as a bad request' }).filter({ hasNotText: 'no-user-query' });
    await plain.getByText('refused (400)', { exact: true }).waitFor();
    // The row keeps the status the engine answered; the app was sent 400.
    const signed = table.locator('tr', { hasText: 'refused by local as a bad request (no-user-query)' });
    await signed.getByText('refused (500)', { exact: true }).waitFor();
    assert.equal(await table.getByText(/failed on local/).count(), 0, 'a refusal is not a node failing');
    await page.getByTestId('routing-summary').getByText('1 served · 2 failed (2 refused as bad requests) · 0 failed over').waitFor();
  });

  it('Resources counts the refusals in "Failed 30m" and says how many they were, and leaves them out of the first-byte figures', async () => {
    const page = watched.page;
    await page.getByRole('link', { name: 'Resources' }).click();
    const card = page.locator('[data-testid="resource-card"][data-node="local"]');
    await card.getByTestId('failed-30m').getByText('2 (2 refused as bad requests)').waitFor();
    await card.getByText(/median [\d.]+ m?s, p90 [\d.]+ m?s over 1 request$/).waitFor();
  });

  it('Home and the Logs view say the same', async () => {
    const page = watched.page;
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByText('1 served · 2 failed (2 refused as bad requests) · 0 failed over').waitFor();
    await page.getByRole('link', { name: 'Logs' }).click();
    const log = page.locator('section[aria-labelledby="log-title"]');
    await log.getByText('refused by local as a bad request (no-user-query)').waitFor();
    await log.getByLabel('Only failures and failovers').check();
    await log.getByText('Showing 2 of 3').waitFor();
  });

  it('reads a 4xx on a row that says served (as Hubs before 2026-09-29 recorded a refusal) as a refusal too', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    // The Hub's own answer, with its refusals rewritten to the older shape: served, no requestError.
    await page.route(`**${POOL_API}/routing-log*`, async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { entries: Row[] };
      const older = { ...body, entries: body.entries.map((r) => (r.status === 400 ? { ...r, outcome: 'served', requestError: null } : r)) };
      await route.fulfill({ response: answer, json: older });
    });
    await gotoPool(page);
    const table = page.getByTestId('recent-routing');
    await table.locator('tbody tr').nth(2).waitFor();
    assert.equal(await table.locator('tr', { hasText: 'refused by local as a bad request' }).count(), 2);
    assert.equal(await table.getByText('served (400)').count(), 0, 'a 4xx is not shown as served');
    await page.getByRole('link', { name: 'Resources' }).click();
    const card = page.locator('[data-testid="resource-card"][data-node="local"]');
    await card.getByTestId('failed-30m').getByText('2 (2 refused as bad requests)').waitFor();
    await card.getByText(/over 1 request$/).waitFor();
    await context.close();
    assert.deepEqual(
      watched.errors.filter((e) => !/Failed to load resource/.test(e)),
      [],
      'no console errors',
    );
  });
});
