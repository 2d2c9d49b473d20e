/**
 * What the dashboard says when a read or a change fails, in real Chromium against one real Hub
 * (no engines, so every request it is sent fails and is still logged): the failure is shown, a
 * figure that could not be read is shown as absent rather than as 0, and nothing pretends a
 * change happened. The Hub's answers are made to fail in the browser (page.route), as a Hub
 * going away or a proxy refusing would make them fail.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

const POOL = '/api/inference/pool';
/** More rows than the routing log keeps (200 by default). */
const REQUESTS = 205;

/** Makes every answer from `path` a 503 with the Hub's error shape and `message`. */
async function failing(page: Page, path: string, message: string, method?: string): Promise<void> {
  await page.route(`**${path}*`, (route) =>
    method !== undefined && route.request().method() !== method
      ? route.continue()
      : route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'HUB_ERR_TEST', message } }) }),
  );
}

describe('dashboard: a read or a change that fails is said, and never shown as zero', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 10 }, () => {
  let hub: HubProcess;
  let browser: Browser;

  before(async () => {
    [hub, browser] = await startTogether([startHubProcess(), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop()]);
  });

  const signedIn = async () => {
    const watched = await openPage(browser);
    await signInByLink(watched.page, hub);
    return watched;
  };

  it('Resources with the routing log unreadable: the error is shown and its counts are absent, not 0; a status read that fails later is shown too', async () => {
    const { page, context } = await signedIn();
    await failing(page, `${POOL}/routing-log`, 'ROUTING LOG DOWN');
    await page.getByRole('link', { name: 'Resources' }).click();
    const card = page.locator('[data-testid="resource-card"][data-node="local"]');
    await card.waitFor();
    await page.getByText('Could not read the routing log: ROUTING LOG DOWN').waitFor();
    assert.equal((await card.getByTestId('failed-30m').textContent())?.trim(), 'not read');
    const unplaced = page.locator('section[aria-labelledby="res-unplaced"]');
    await unplaced.getByText('Not read:').waitFor();
    assert.equal(await unplaced.getByText(/^\d+ failed/).count(), 0, 'no count of unplaced requests is made up');

    await failing(page, `${POOL}/status`, 'STATUS DOWN');
    // Resources reads status every 15 s.
    await page.getByText('Could not refresh: STATUS DOWN').waitFor();
    await context.close();
  });

  // Found stopping a Hub with its Hub Pool page open: the badge still read Routing, in green, over
  // a plain "Could not refresh: Failed to fetch" that said nothing of the figures' age.
  it('Hub Pool with a later status read failing: an alert says so, and that the page shows the last read and when it was', async () => {
    const { page, context } = await signedIn();
    await page.getByRole('link', { name: 'Hub Pool', exact: true }).click();
    await page.getByTestId('pool-badge').waitFor();
    await failing(page, `${POOL}/status`, 'STATUS DOWN');
    // Hub Pool reads status every 15 s.
    await page
      .getByRole('alert')
      .getByText(/^Could not refresh: STATUS DOWN\. The status shown is from the last read, at .+; it is tried again every 15 s\.$/)
      .waitFor();
    await context.close();
  });

  it('a first status read that fails is said on Home, Hub Pool and Resources, naming what could not be read', async () => {
    const { page, context } = await openPage(browser);
    // Failing before sign-in, so no page ever reads status: each one's first read fails.
    await failing(page, `${POOL}/status`, 'STATUS DOWN');
    await signInByLink(page, hub);
    const said = "Could not read this Hub's pool status: STATUS DOWN.";
    await page.getByRole('alert').getByText(said).waitFor();
    await page.getByRole('link', { name: 'Hub Pool', exact: true }).click();
    await page.getByRole('alert').getByText(said).waitFor();
    await page.getByRole('link', { name: 'Resources' }).click();
    await page.getByRole('alert').getByText(said).waitFor();
    assert.equal(await page.locator('.notice.bad', { hasText: said }).count(), 1, 'said in the style later failures use');
    await context.close();
  });

  it("This node says when the Hub's Tailscale report could not be read", async () => {
    const { page, context } = await signedIn();
    await failing(page, `${POOL}/tailscale`, 'TAILSCALE REPORT DOWN');
    await page.getByRole('link', { name: 'Hub Pool', exact: true }).click();
    await page.locator('section[aria-labelledby="this-node"]').getByText("Could not read this Hub's Tailscale report: TAILSCALE REPORT DOWN").waitFor();
    await context.close();
  });

  it('the Logs view says the routing log could not be read instead of showing 0 rows', async () => {
    const { page, context } = await signedIn();
    await failing(page, `${POOL}/routing-log`, 'ROUTING LOG DOWN');
    await page.getByRole('link', { name: 'Logs' }).click();
    const section = page.locator('section[aria-labelledby="log-title"]');
    await section.getByText('Could not read the routing log: ROUTING LOG DOWN').waitFor();
    assert.equal(await section.getByText(/Showing \d+ of \d+/).count(), 0);
    await context.close();
  });

  it('Home counts every request since the Hub started, not only the rows it still holds; Logs says it shows the newest rows; a failed read is said', async () => {
    for (let i = 0; i < REQUESTS; i++) {
      const res = await fetch(`${hub.pool}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'nowhere:1b', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await res.arrayBuffer();
    }
    const summary = ((await hub.api('GET', `${POOL}/routing-log?limit=1`)).json as { summary: { totalRecorded: number; recorded: number } }).summary;
    assert.equal(summary.totalRecorded, REQUESTS);
    assert.ok(summary.recorded < REQUESTS, 'the log holds fewer rows than were sent');

    const { page, context } = await signedIn();
    const card = page.locator('section[aria-labelledby="home-requests"]');
    await card.getByText(`${REQUESTS} requests`).waitFor();
    await card.getByText(`of the newest ${summary.recorded}`).waitFor();
    // The Logs view holds the newest rows only, and says so rather than claiming the whole log.
    await page.getByRole('link', { name: 'Logs' }).click();
    const log = page.locator('section[aria-labelledby="log-title"]');
    await log.getByText('Up to the newest 200 decisions this Hub holds').waitFor();
    await log.getByText(`Showing ${summary.recorded} of ${summary.recorded}`).waitFor();
    await page.getByRole('link', { name: 'Home' }).click();

    // A later read that fails leaves the last read's counts up, and says they are that old.
    await card.getByText(`${REQUESTS} requests`).waitFor();
    await failing(page, `${POOL}/routing-log`, 'ROUTING LOG DOWN');
    await card.getByText('Could not read the routing log: ROUTING LOG DOWN. The counts below are from the last read.').waitFor();
    assert.equal(await card.getByText(`${REQUESTS} requests`).count(), 1);
    // Hub Pool's Recent routing says the same of its counts and rows.
    await page.unroute(`**${POOL}/routing-log*`);
    await page.getByRole('link', { name: 'Hub Pool', exact: true }).click();
    const recent = page.locator('section[aria-labelledby="recent-routing"]');
    await recent
      .getByTestId('routing-summary')
      .getByText(/\d+ served/)
      .waitFor();
    await failing(page, `${POOL}/routing-log`, 'ROUTING LOG DOWN');
    await recent.getByText('Could not read the routing log: ROUTING LOG DOWN. The counts and rows shown are from the last read.').waitFor();

    await page.getByRole('link', { name: 'Home' }).click();
    await page.reload();
    await card.getByText('Could not read the routing log: ROUTING LOG DOWN').waitFor();
    assert.equal(await card.getByText('from the last read').count(), 0, 'nothing was read, so no counts are claimed');
    await context.close();
  });

  it('a Check step fix the Hub refuses says why, in the guide', async () => {
    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolEnabled: false })).status, 200);
    const { page, context } = await signedIn();
    await page.getByRole('link', { name: 'Hub Pool', exact: true }).click();
    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    const poolOn = guide.getByTestId('check').filter({ hasText: 'Hub Pool is on' });
    await failing(page, `${POOL}/settings`, 'SETTINGS REFUSED', 'PATCH');
    await poolOn.getByRole('button', { name: 'Turn on Hub Pool' }).click();
    await guide.getByRole('alert').getByText('SETTINGS REFUSED').waitFor();
    await poolOn.getByText('Needs action').waitFor();
    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolEnabled: true })).status, 200);
    await context.close();
  });

  it('the guide opened while status cannot be read says so and offers Check again, which reads it again', async () => {
    const { page, context } = await signedIn();
    await page.getByRole('link', { name: 'Hub Pool', exact: true }).click();
    await page.getByTestId('pool-badge').waitFor();
    await failing(page, `${POOL}/status`, 'STATUS DOWN');
    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('alert').getByText("Could not read this Hub's pool status: STATUS DOWN.").waitFor();
    await page.unroute(`**${POOL}/status*`);
    await guide.getByRole('button', { name: 'Check again' }).click();
    await guide.getByTestId('check').first().waitFor();
    assert.equal(await guide.getByRole('alert').count(), 0, 'the failure is no longer said once a read succeeds');
    await context.close();
  });

  it('a Hub that gives no answer at all is said as such, not as the browser\'s "Failed to fetch"', async () => {
    const { page, context } = await signedIn();
    await page.getByRole('link', { name: 'Hub Pool', exact: true }).click();
    const devices = page.locator('section[aria-labelledby="discoverable"]');
    await devices.getByRole('button', { name: 'Rescan' }).waitFor();
    // Every call to the Hub from here on gets no response, as when the Hub process has stopped.
    await page.route(`**/api/**`, (route) => route.abort('connectionrefused'));
    await devices.getByRole('button', { name: 'Rescan' }).click();
    await devices.getByText('The scan failed: this Hub did not answer (it may be stopped or restarting)').waitFor();
    assert.equal(await page.getByText('Failed to fetch').count(), 0);
    await context.close();
  });

  it('Sign out that the Hub did not carry out keeps the page and says so', async () => {
    const { page, context } = await signedIn();
    await failing(page, '/api/hub/session', 'SIGN OUT FAILED', 'DELETE');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('alert').getByText('Could not sign out: SIGN OUT FAILED').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 1, 'still signed in, as the Hub still holds the session');
    await page.unroute('**/api/hub/session*');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Operator key or API key').waitFor();
    await context.close();
  });
});
