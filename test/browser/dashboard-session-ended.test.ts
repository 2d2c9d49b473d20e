/**
 * A session that ends under an open page, in real Chromium against a real Hub on loopback: the
 * Hub restarts on the same data dir, which keeps sessions in memory only, so the page's next read
 * is refused and it goes back to sign-in. That page says the session ended and why it may have,
 * with focus on the key field; signing out by hand goes to the same page with nothing of the sort.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { launchBrowser, openPage, signInByLink } from './browser.js';

const ENDED = 'Your session has ended: this Hub restarted, or the session ran out or was closed. Sign in again to go on.';

describe('dashboard: a session that ends while the page is open', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: {} }, pairs: [] }), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('after the Hub restarts, sign-in says the session ended, with focus on the key field; Sign out by hand says nothing of it', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    // The Logs view reads the routing log every 2 s, so it meets the restarted Hub soon after.
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('heading', { name: 'Routing log' }).waitFor();
    await pool.a.restart();

    const keyField = page.getByLabel('Operator key or API key');
    await keyField.waitFor();
    await page.getByRole('status').filter({ hasText: ENDED }).waitFor();
    assert.equal(await page.evaluate('document.activeElement?.id'), 'signin-key', 'focus on the key field');
    assert.match((await keyField.getAttribute('aria-describedby')) ?? '', /signin-ended/, 'the field is described by why it is asked for');

    // Signed in again on this very page (no reload to forget what it said), then out by hand.
    await keyField.fill(pool.a.process.operatorKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await keyField.waitFor();
    assert.equal(await page.getByText(ENDED).count(), 0, 'signing out is not a session that ended');
    // The restart's refused reads and failed fetches are what the console shows; nothing else.
    assert.deepEqual(
      errors.filter((e) => !/Failed to load resource|net::ERR_CONNECTION_REFUSED/.test(e)),
      [],
    );
    await context.close();
  });
});
