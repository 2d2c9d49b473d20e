/**
 * Controls on a Hub whose environment switches pooling off (HUB_POOL_USER_DISABLED=true) and
 * inbound as well (HUB_POOL_INBOUND_DISABLED=true), in real Chromium against one real Hub. The
 * badge and each locked switch say the .env holds them, and neither can be flipped: the setting
 * behind them cannot undo an environment flag, so a toggle there would appear to do nothing.
 * The outbound switch, which no flag names, shows its setting. dashboard-controls.test.ts covers
 * the outbound flag on a Hub whose pool is on.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

describe('dashboard: switches the .env holds off', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS }, () => {
  let hub: HubProcess;
  let browser: Browser;

  before(async () => {
    [hub, browser] = await startTogether([startHubProcess({ env: { HUB_POOL_USER_DISABLED: 'true', HUB_POOL_INBOUND_DISABLED: 'true' } }), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop()]);
  });

  it('the badge and the Hub Pool and take-work switches name their flags and are locked off; send-work shows its setting', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, hub);
    await gotoPool(page);
    await page.getByTestId('pool-badge').getByText("Disabled in this Hub's .env", { exact: true }).waitFor();

    const master = page.getByRole('switch', { name: 'Hub Pool' });
    await page.getByText("Disabled in this Hub's .env (HUB_POOL_USER_DISABLED=true)").waitFor();
    assert.deepEqual([await master.isChecked(), await master.isDisabled()], [false, true]);

    const inbound = page.getByRole('switch', { name: 'Take work from paired Hubs' });
    await page.getByText("Disabled in this Hub's .env (HUB_POOL_INBOUND_DISABLED=true)").waitFor();
    assert.deepEqual([await inbound.isChecked(), await inbound.isDisabled()], [false, true]);

    const outbound = page.getByRole('switch', { name: 'Send work to paired Hubs' });
    assert.deepEqual([await outbound.isChecked(), await outbound.isDisabled()], [true, false]);
    assert.equal(await page.getByText(/HUB_POOL_OUTBOUND_DISABLED/).count(), 0, 'no flag names outbound, so no lock');
    await context.close();
  });
});
