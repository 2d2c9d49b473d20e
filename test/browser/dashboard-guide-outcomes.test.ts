/**
 * What the setup guide tells, and where it leaves the page, in real Chromium against three real
 * Hubs on loopback. B and C ask to join A. In A's guide, Approve and Reject each take their row
 * and button away: the step says what happened in its status line and focus moves there. Done
 * brings back a Home that read status again at once, not at its next 30 s turn (the page's clock
 * is held, so that turn never comes). On Connect, each row's Sending… turning into its answer is
 * told through a live region, since nothing there moves focus.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../helpers/hub-process.js';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool, type PoolHub } from '../helpers/pool-fixture.js';
import { scaled } from '../helpers/time-scale.js';
import { answerDiscovery, gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

/** Far less than Home's 30 s between reads: a card gone within this went on a read of its own. */
const REREAD_BOUND_MS = scaled(10_000);

describe('dashboard: what the setup guide tells, and the page it leaves', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 3 }, () => {
  let pool: Pool<'a' | 'b' | 'c'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: {}, b: {}, c: {} }, pairs: [] }), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  const askToJoin = async (from: PoolHub, to: PoolHub) => {
    const asked = await from.api('POST', `${POOL_API}/peers/pair`, { nodeFqdn: to.name });
    assert.equal(asked.status, 200, JSON.stringify(asked.json));
    await eventually(() => to.peer(from), `${from.name}'s request on ${to.name}`);
  };
  const focusedTestId = (page: Page): Promise<string | null> =>
    page.evaluate('document.activeElement?.getAttribute("data-testid") ?? null') as Promise<string | null>;

  it('Approve and Reject are each said in the step with focus moved there, and Done leaves Home already showing no request waiting', async () => {
    await askToJoin(pool.b, pool.a);
    await askToJoin(pool.c, pool.a);
    const { page, context } = await openPage(browser);
    await page.clock.install();
    await signInByLink(page, pool.a.process);
    const review = page.locator('section[aria-labelledby="review-title"]');
    await review.getByRole('heading', { name: '2 Hubs want to join your pool' }).waitFor();
    // From here no timer of the page runs: whatever Home shows next, it read on its own account.
    await page.clock.pauseAt(Date.now() + 1_000);

    await review.getByRole('button', { name: 'Review requests' }).click();
    const guide = page.getByRole('dialog');
    const said = guide.getByTestId('guide-approve-said');
    await guide.getByRole('button', { name: `Approve ${pool.b.name}` }).focus();
    await page.keyboard.press('Enter');
    await guide
      .getByRole('status')
      .filter({ hasText: `Approved ${pool.b.name}.` })
      .waitFor();
    assert.equal(await focusedTestId(page), 'guide-approve-said', 'focus, lost with the button, is on the sentence');

    await guide.getByRole('button', { name: `Reject ${pool.c.name}` }).focus();
    await page.keyboard.press('Enter');
    await guide
      .getByRole('status')
      .filter({ hasText: `Rejected ${pool.c.name}.` })
      .waitFor();
    assert.equal(await said.count(), 1, 'one sentence: the last outcome');
    assert.equal(await focusedTestId(page), 'guide-approve-said');

    await guide.getByRole('button', { name: 'Done' }).click();
    await guide.waitFor({ state: 'detached' });
    await review.waitFor({ state: 'detached', timeout: REREAD_BOUND_MS });
    await page.getByText('0 requests pending').waitFor({ timeout: REREAD_BOUND_MS });
    await context.close();
  });

  it("Connect tells a screen reader each request's answer as its badge changes", async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await answerDiscovery(page, []);
    await gotoPool(page);
    await page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: 'Add Hubs' }).click();
    const guide = page.getByRole('dialog');
    // C, rejected above, can be asked again; a name off the tailnet is refused at once.
    for (const name of [pool.c.name, 'nobody.example']) {
      await guide.getByLabel('Add a Hub by its tailnet name').fill(name);
      await guide.getByRole('button', { name: 'Add', exact: true }).click();
    }
    await guide.getByRole('button', { name: 'Send 2 requests' }).click();
    const told = guide.getByTestId('guide-connect-said');
    assert.equal(await told.getAttribute('role'), 'status');
    await told.filter({ hasText: `The request reached ${pool.c.name}.` }).waitFor();
    await told.filter({ hasText: 'The request to nobody.example did not go through; its row says what to check.' }).waitFor();
    await guide.getByTestId('connect-result').filter({ hasText: pool.c.name }).getByText('Request sent').waitFor();
    await context.close();
  });
});
