/**
 * The setup guide when its own Hub stops mid-guide, in real Chromium at 360 px against a real
 * Hub paired with another: the Approve step keeps the last status it read (a connected, verified
 * Hub and "Your pool is ready"), so the failed read is said as an alert that dates what is shown.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { answerDiscovery, gotoPool, launchBrowser, openPage, PHONE, signInByLink } from './browser.js';

describe('dashboard: the setup guide with its Hub stopped', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: {}, b: {} }, pairs: [['a', 'b']] }), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('on Approve, a failed status read is an alert saying the Hubs shown are from the last read and when that was', async () => {
    const { page, context } = await openPage(browser, PHONE);
    await signInByLink(page, pool.a.process);
    await answerDiscovery(page, []);
    await gotoPool(page);
    await page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: 'Add Hubs' }).click();
    const guide = page.getByRole('dialog');
    // A name off the tailnet is refused at once, which is the quickest way through Connect to Approve.
    await guide.getByLabel('Add a Hub by its tailnet name').fill('nobody.example');
    await guide.getByRole('button', { name: 'Add', exact: true }).click();
    await guide.getByRole('button', { name: 'Send 1 request' }).click();
    await guide.getByRole('button', { name: 'Retry failed requests' }).waitFor();
    await guide.getByRole('button', { name: 'Continue' }).click();
    await guide.getByText('Verified', { exact: true }).waitFor();

    await pool.a.process.stop();
    const alert = guide.getByRole('alert').filter({ hasText: "Could not read this Hub's pool status" });
    await alert.waitFor();
    const said = await alert.innerText();
    assert.match(said, /from the last read, at \d/, 'dates what is shown');
    assert.match(said, /tries again every 3 s/);
    await guide.getByText('Verified', { exact: true }).waitFor();
    await context.close();
  });
});
