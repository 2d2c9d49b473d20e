/**
 * The dashboard's side of LAN discovery (guide, "How Hubs find each other"), in real Chromium
 * against a real Hub and a second mDNS responder in this test: the Controls switch turns it on,
 * and the Hub heard on the LAN is listed under Discoverable devices as Unverified, with no Pair.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink, type WatchedPage } from './browser.js';
import { startTogether } from '../helpers/start-together.js';
import { startLanResponder, type LanResponder } from '../helpers/lan-responder.js';

describe('dashboard: Hubs heard on the LAN', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  let pageA: WatchedPage;
  let studio: LanResponder;

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: { ollama: { models: ['m-a:1b'] } } }, pairs: [] }), launchBrowser()]);
    studio = await startLanResponder();
    pageA = await openPage(browser);
    await signInByLink(pageA.page, pool.a.process);
  });
  after(async () => {
    studio?.close();
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('the Controls switch turns LAN discovery on, and a Hub heard there is Unverified with no Pair button', async () => {
    const a = pageA.page;
    await gotoPool(a);
    const lanSwitch = a.getByRole('switch', { name: 'Discover Hubs on the LAN (mDNS)' });
    assert.equal(await lanSwitch.isChecked(), false, 'off by default');
    await lanSwitch.click();
    await a.getByText('Discover Hubs on the LAN (mDNS) switched on.').waitFor();
    assert.equal((await pool.a.status()).settings.poolLanDiscovery, true);

    const section = a.locator('section[aria-labelledby="discoverable"]');
    await section.getByRole('button', { name: 'Rescan' }).click();
    const row = section.locator('li').filter({ hasText: studio.hostLabel });
    await row.getByText('Unverified').waitFor();
    assert.equal(await row.getByRole('button', { name: 'Pair' }).count(), 0);
  });
});
