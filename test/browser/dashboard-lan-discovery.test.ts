/**
 * The dashboard's side of LAN discovery (guide, "How Hubs find each other"), in real Chromium
 * against a real Hub and a second mDNS responder in this test: the Controls switch turns it on,
 * and the Hub heard on the LAN is listed under Discoverable devices as Unverified, with no Pair.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import makeMdns from 'multicast-dns';
import { announcementRecords, LAN_SERVICE_TYPE } from '../../src/discovery/lan-announcement.js';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink, type WatchedPage } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

const STUDIO_ID = randomBytes(4).toString('hex');
const STUDIO = `studio-${STUDIO_ID}`;

describe('dashboard: Hubs heard on the LAN', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  let pageA: WatchedPage;
  let responder: ReturnType<typeof makeMdns>;

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: { ollama: { models: ['m-a:1b'] } } }, pairs: [] }), launchBrowser()]);
    responder = makeMdns({ interface: '127.0.0.1', bind: '0.0.0.0' });
    const records = announcementRecords({ id: STUDIO_ID, hostLabel: STUDIO, nodeFqdn: `${STUDIO}.tail0.ts.net`, port: 5002 });
    responder.on('query', (q) => {
      if (q.questions.some((x) => x.name === LAN_SERVICE_TYPE)) responder.respond({ answers: records });
    });
    pageA = await openPage(browser);
    await signInByLink(pageA.page, pool.a.process);
  });
  after(async () => {
    responder?.destroy();
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
    const row = section.locator('li').filter({ hasText: STUDIO });
    await row.getByText('Unverified').waitFor();
    assert.equal(await row.getByRole('button', { name: 'Pair' }).count(), 0);
  });
});
