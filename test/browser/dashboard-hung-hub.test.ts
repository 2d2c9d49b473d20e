/**
 * The dashboard in front of a Hub that hangs instead of refusing, in real Chromium against a real
 * Hub on loopback stopped with SIGSTOP: the kernel still takes the browser's connections and
 * nothing answers them, as with a Hub asleep or a tailnet path that stalled. Before each call had a
 * bound, the polls waited forever: every page went on showing its last figures as current with no
 * alert, and a change pressed meanwhile said nothing, then went through once the Hub woke.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { startTogether } from '../helpers/start-together.js';
import { gotoPool, launchBrowser, openPage, signInByLink, untilTrueInPage } from './browser.js';

describe('dashboard: a Hub that hangs', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 3 }, () => {
  let hub: HubProcess;
  let browser: Browser;

  before(async () => {
    [hub, browser] = await startTogether([startHubProcess(), launchBrowser()]);
  });
  after(async () => {
    // Resumed first: a stopped process would not act on the stop signal.
    hub?.child.kill('SIGCONT');
    await Promise.allSettled([browser?.close(), hub?.stop()]);
  });

  it('each page says, within its read bound, that the Hub did not answer and that its figures are from the last read; a change pressed meanwhile is answered beside it within the change bound; both go once the Hub answers', async () => {
    const { context, page: pool, errors } = await openPage(browser);
    await signInByLink(pool, hub);
    await gotoPool(pool);
    await pool.locator('section[aria-labelledby="recent-routing"]').getByTestId('routing-summary').waitFor();
    const resources = await context.newPage();
    await resources.goto(`${hub.url}/#/resources`);
    await untilTrueInPage(
      resources,
      `document.querySelector('[data-testid="resource-card"][data-node="local"] [data-testid="failed-30m"]')?.textContent === '0'`,
    );
    const logs = await context.newPage();
    await logs.goto(`${hub.url}/#/logs`);
    await logs
      .locator('section[aria-labelledby="log-title"]')
      .getByText(/Showing \d+ of \d+/)
      .waitFor();

    const stale = pool
      .getByRole('alert')
      .getByText(
        /^Could not refresh: this Hub did not answer within 15 s \(it may be stopped, asleep or cut off from this browser\)\. The status shown is from the last read, at .+; it is tried again every 15 s\.$/,
      );
    // The calls the page gave up on, in order: the change's answer is said when its own bound runs
    // out, not after the status read that follows it, which waits out the read bound too.
    const gaveUp: string[] = [];
    pool.on('requestfailed', (r) => gaveUp.push(`${r.method()} ${new URL(r.url()).pathname}`));
    assert.ok(hub.child.kill('SIGSTOP'), 'the Hub process stopped');
    try {
      await pool.getByRole('button', { name: 'Generate PIN' }).click();
      await stale.waitFor();
      const unread = /^Could not read the routing log: this Hub did not answer within 15 s \(it may be stopped, asleep or cut off from this browser\)\./;
      await resources.getByRole('alert').getByText(unread).waitFor();
      await logs.locator('section[aria-labelledby="log-title"]').getByText(unread).waitFor();
      await pool
        .getByTestId('pin-card-said')
        .getByText(
          /^No PIN made: this Hub did not answer within 30 s \(it may be stopped, asleep or cut off from this browser\); if it was only slow, the change may still be made, and the page shows it once the Hub answers$/,
        )
        .waitFor();
      const afterChange = gaveUp.slice(gaveUp.indexOf('POST /api/inference/pool/pairing-pin') + 1);
      assert.ok(gaveUp.includes('POST /api/inference/pool/pairing-pin'), gaveUp.join(', '));
      assert.deepEqual(
        afterChange.filter((call) => call === 'GET /api/inference/pool/status'),
        [],
        'said before the next status read ended',
      );
      assert.equal(await pool.getByRole('button', { name: 'Generate PIN', exact: true }).getAttribute('aria-disabled'), null, 'pressable again');
    } finally {
      hub.child.kill('SIGCONT');
    }
    // The next reads answer: the alerts go, with nothing to reload.
    await stale.waitFor({ state: 'detached' });
    await untilTrueInPage(resources, `document.querySelectorAll('[role="alert"]').length === 0`);
    for (const page of [pool, resources, logs]) assert.equal(await page.getByText('Failed to fetch').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
