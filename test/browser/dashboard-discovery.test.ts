/**
 * Hubs found by discovery as the dashboard shows them, and when it scans, in real Chromium
 * against one real Hub whose discovery answer is replaced in the browser: the test Hubs are on
 * no tailnet, so a real scan finds nobody to show.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { answerDiscovery, gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

/** One candidate as GET /peers/discoverable lists it (src/discovery/discovery-service.ts). */
const FOUND = { nodeFqdn: 'hub-q.tail0.ts.net', displayName: 'hub-q', deviceId: null, os: 'linux', online: true, poolProtocol: 1 };

/** A tailnet device that was probed and did not answer as a Hub, as the same answer lists it. */
const NOT_A_HUB = { nodeFqdn: 'laptop.tail0.ts.net', os: 'macOS', online: false, reason: 'ECONNREFUSED' };

describe('dashboard: Hubs found by discovery', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: {}, b: {} }, pairs: [] }), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it("the guide's Find step names a found Hub by its short name, with the full name on hover", async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await answerDiscovery(page, [FOUND]);
    await gotoPool(page);
    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    const choice = guide.getByRole('checkbox', { name: FOUND.displayName, exact: true });
    await choice.waitFor();
    const label = guide.locator(`label[for="${await choice.getAttribute('id')}"]`);
    assert.equal(await label.getAttribute('title'), FOUND.nodeFqdn);
    await context.close();
  });

  it("the guide's Find step, finding no Hub, says No Hubs found and names the tailnet devices that did not answer as one", async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await page.route(`**${POOL_API}/peers/discoverable*`, (route) => route.fulfill({ json: { candidates: [], notHubs: [NOT_A_HUB], directories: [] } }));
    await gotoPool(page);
    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    const empty = guide.getByTestId('discovery-empty');
    await empty.waitFor();
    const text = await empty.innerText();
    assert.match(text, /No Hubs found/);
    assert.ok(text.includes(NOT_A_HUB.nodeFqdn), `the device that did not answer is named:\n${text}`);
    await context.close();
  });

  it('Discoverable devices scans when the page opens and on Rescan, and says so', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    const scans = await answerDiscovery(page, [FOUND]);
    await gotoPool(page);
    const section = page.locator('section[aria-labelledby="discoverable"]');
    await section.locator('li').filter({ hasText: FOUND.displayName }).getByRole('button', { name: 'Pair' }).waitFor();
    assert.equal(scans(), 1, 'one scan as the page opened, with nothing clicked');
    await section.getByText('Scans when this page opens and on Rescan, never on a timer').waitFor();
    await section.getByRole('button', { name: 'Rescan' }).click();
    await eventually(() => scans() === 2, 'the scan Rescan asks for');
    await context.close();
  });

  it('Discoverable devices leaves out a Hub once Pair has sent it a request and once it is paired, with no Rescan, and says when every Hub found has gone', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    const hubB = { ...FOUND, nodeFqdn: pool.b.name, displayName: 'hub-b' };
    await answerDiscovery(page, [hubB, FOUND]);
    await gotoPool(page);
    const section = page.locator('section[aria-labelledby="discoverable"]');
    const pairB = section.getByRole('button', { name: `Pair with ${pool.b.name}`, exact: true });
    await pairB.click();
    await section.getByText(`Pairing request sent to ${pool.b.name}.`, { exact: true }).waitFor();
    await page.getByTestId('pending-outbound').filter({ hasText: pool.b.name }).waitFor();
    // Found before the request went, the Hub now waits under Pending requests: a second Pair could only be refused here.
    assert.equal(await pairB.count(), 0, 'no Pair for a Hub with a request waiting');
    await section.getByRole('button', { name: `Pair with ${FOUND.nodeFqdn}`, exact: true }).waitFor();

    const asked = await eventually(() => pool.b.peer(pool.a), `${pool.a.name}'s request to reach ${pool.b.name}`);
    const approved = await pool.b.api('POST', `${POOL_API}/peers/${asked.id}/approve`);
    assert.equal(approved.status, 200, JSON.stringify(approved.json));
    await eventually(async () => (await pool.a.peer(pool.b))?.status === 'connected', `${pool.b.name} paired on ${pool.a.name}`);
    // The page reopened: its scan still lists the paired Hub (the answer here is fixed), and the page leaves it out.
    await page.reload();
    await gotoPool(page);
    await section.getByRole('button', { name: `Pair with ${FOUND.nodeFqdn}`, exact: true }).waitFor();
    assert.equal(await section.getByText('hub-b', { exact: true }).count(), 0, 'a paired Hub is not listed');

    await page.unroute(`**${POOL_API}/peers/discoverable*`);
    await answerDiscovery(page, [hubB]);
    await section.getByRole('button', { name: 'Rescan' }).click();
    await section
      .getByTestId('discovery-empty')
      .getByText(/^Every Hub the last scan found is now paired with this Hub or has a request under Pending requests\.$/)
      .waitFor();
    assert.equal(await section.getByText('No unpaired Hubs found.').count(), 0);
    await context.close();
  });
});
