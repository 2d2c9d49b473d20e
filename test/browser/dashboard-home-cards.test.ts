/**
 * Home's two pool cards and the Hub Pool page's setup callout, in real Chromium against real
 * Hubs on loopback: when "Pool your Hubs" shows and when it does not, that its dismissal belongs
 * to one browser origin, and that the review card for waiting requests stands on its own, counts
 * them, and arrives on Home's own 30 s read. Requests come from fake peers in this process (their
 * names are only claims, which is all a request without a PIN carries). Hub D runs with
 * HUB_POOL_USER_DISABLED=true, which leaves nothing to set up.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { FakePeer } from '../integration/pairing-fixtures.js';
import { gotoPool, launchBrowser, openPage, signInByLink, signInLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

/** Home reads status this often (web/src/Home.tsx, the guide's figure). */
const HOME_POLL_MS = 30_000;

describe("dashboard: Home's pool cards and the setup callout", { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 6 }, () => {
  let pool: Pool<'a' | 'd'>;
  let browser: Browser;
  let context: BrowserContext;
  let home: Page;
  const e = new FakePeer('hub-e');
  const f = new FakePeer('hub-f');

  before(async () => {
    [pool, browser] = await startTogether([
      startPool({ hubs: { a: { settings: { poolEnabled: false } }, d: { env: { HUB_POOL_USER_DISABLED: 'true' } } }, pairs: [] }),
      launchBrowser(),
    ]);
    ({ context, page: home } = await openPage(browser));
    await signInByLink(home, pool.a.process);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  /** Home freshly loaded at `origin`, once it has drawn what its first status read says. */
  const homeDrawn = async (page: Page, origin = pool.a.url) => {
    await page.goto(`${origin}/#/`);
    await page.reload();
    await page.getByRole('heading', { name: 'Models in the pool' }).waitFor();
  };

  it('"Pool your Hubs" waits for Hub Pool to be on; its "Set up Hub Pool" opens the setup guide', async () => {
    await home.getByTestId('first-run').getByRole('button', { name: 'Finish setup' }).click();
    await homeDrawn(home);
    assert.equal(await home.getByRole('heading', { name: 'Pool your Hubs' }).count(), 0, 'Hub Pool is off');

    await pool.a.patchSettings({ poolEnabled: true });
    await homeDrawn(home);
    const card = home.locator('section[aria-labelledby="pool-card-title"]');
    await card.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = home.getByRole('dialog');
    await guide.getByRole('heading', { name: 'Set up Hub Pool' }).waitFor();
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();
    await guide.waitFor({ state: 'detached' });
  });

  it('dismissed at one address, the card still shows at another address of the same Hub', async () => {
    await home.locator('section[aria-labelledby="pool-card-title"]').getByRole('button', { name: 'Dismiss' }).click();
    await homeDrawn(home);
    assert.equal(await home.getByRole('heading', { name: 'Pool your Hubs' }).count(), 0, 'dismissed here');

    // Same browser, same Hub, another origin (localhost rather than 127.0.0.1): its own storage.
    const other = await context.newPage();
    const link = new URL(await signInLink(pool.a.process));
    link.hostname = 'localhost';
    await other.goto(link.toString());
    await other.getByRole('button', { name: 'Sign out' }).waitFor();
    // First-run setup is kept per origin too, so it shows here again before the card.
    await other.getByTestId('first-run').getByRole('button', { name: 'Finish setup' }).click();
    await other.getByRole('heading', { name: 'Pool your Hubs' }).waitFor();
    await other.close();
  });

  it('a request that arrives while Home is open shows on its next 30 s read, though "Pool your Hubs" was dismissed; two are counted, and Review requests opens Approve', async () => {
    const page = await context.newPage();
    await page.clock.install();
    await homeDrawn(page);
    assert.equal(await page.locator('section[aria-labelledby="review-title"]').count(), 0, 'nothing waits yet');

    await e.start();
    assert.equal((await e.requestPairing(pool.a.process)).status, 200);
    await page.clock.fastForward(HOME_POLL_MS);
    const review = page.locator('section[aria-labelledby="review-title"]');
    await review.getByRole('heading', { name: '1 Hub wants to join your pool' }).waitFor();
    await review.getByRole('button', { name: 'Review request', exact: true }).waitFor();

    await f.start();
    assert.equal((await f.requestPairing(pool.a.process)).status, 200);
    await page.clock.fastForward(HOME_POLL_MS);
    await review.getByRole('heading', { name: '2 Hubs want to join your pool' }).waitFor();
    await review.getByRole('button', { name: 'Review requests', exact: true }).click();
    const guide = page.getByRole('dialog');
    for (const peer of [e, f]) await guide.getByTestId('guide-incoming').filter({ hasText: peer.name }).getByRole('button', { name: 'Approve' }).waitFor();
    assert.equal(await guide.getByRole('heading', { name: 'Check' }).count(), 0, 'opened on Approve, not Check');
    await page.close();
  });

  it('"Pool your Hubs" is not offered while a request is waiting, even where it was never dismissed', async () => {
    const page = await context.newPage();
    const link = new URL(await signInLink(pool.a.process));
    link.hostname = 'localhost';
    await page.goto(link.toString());
    await page.locator('section[aria-labelledby="review-title"]').getByRole('heading', { name: '2 Hubs want to join your pool' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Pool your Hubs' }).count(), 0);
    await page.close();
  });

  it('the Hub Pool page offers "Set up Hub Pool" while requests only wait (none is paired), and the guide opens on Approve', async () => {
    await gotoPool(home);
    const callout = home.locator('section[aria-labelledby="pool-title"]');
    await callout.getByRole('button', { name: 'Set up Hub Pool' }).click();
    assert.equal(await callout.getByRole('button', { name: 'Add Hubs' }).count(), 0, 'nothing is paired yet');
    const guide = home.getByRole('dialog');
    await guide.getByTestId('guide-incoming').filter({ hasText: e.name }).waitFor();
    assert.equal(await guide.getByRole('heading', { name: 'Check' }).count(), 0);
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();
    await Promise.all([e.close(), f.close()]);
  });

  it('under HUB_POOL_USER_DISABLED there is nothing to set up: no callout, no Add Hubs, no Home card', async () => {
    const { page, context: own } = await openPage(browser);
    await signInByLink(page, pool.d.process);
    await page.getByTestId('first-run').getByRole('button', { name: 'Finish setup' }).click();
    await homeDrawn(page, pool.d.url);
    assert.equal(await page.getByRole('heading', { name: 'Pool your Hubs' }).count(), 0);
    await gotoPool(page);
    await page.getByTestId('pool-badge').getByText("Disabled in this Hub's .env", { exact: true }).waitFor();
    for (const name of ['Set up Hub Pool', 'Add Hubs']) assert.equal(await page.getByRole('button', { name }).count(), 0, `no ${name}`);
    await own.close();
  });
});
