/**
 * The Discoverable devices section names the Tailscale OAuth variables for as long as the Hub has
 * no OAuth client (status's tailscaleAdminApiConfigured false), whatever the scan listed: a Hub
 * heard on the LAN says nothing about the tailnet devices only the Admin API would name. The
 * setup guide's Find step likewise keeps its "No Hubs found" notes, the Admin API's among them,
 * beside a Hub heard on the LAN, which it cannot choose. Real Chromium, a real Hub with no
 * credential, and an mDNS responder in this test for the LAN row.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink, type WatchedPage } from './browser.js';
import { startTogether } from '../helpers/start-together.js';
import { startLanResponder, type LanResponder } from '../helpers/lan-responder.js';

const VARIABLES = 'set TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET';

describe('dashboard: the OAuth client hint under Discoverable devices', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  let pageA: WatchedPage;
  let studio: LanResponder;

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: {} }, pairs: [] }), launchBrowser()]);
    studio = await startLanResponder();
    pageA = await openPage(browser);
    await signInByLink(pageA.page, pool.a.process);
  });
  after(async () => {
    studio?.close();
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('with nothing found, the empty list names the OAuth variables once', async () => {
    assert.equal((await pool.a.status()).tailscaleAdminApiConfigured, false, 'the Hub has no OAuth client');
    const a = pageA.page;
    await gotoPool(a);
    const section = a.locator('section[aria-labelledby="discoverable"]');
    await section.getByTestId('discovery-empty').waitFor();
    await section.getByTestId('oauth-hint').waitFor();
    const text = await section.innerText();
    assert.equal(text.split('TAILSCALE_OAUTH_CLIENT_ID').length - 1, 1, `said once, not again among the directory notes:\n${text}`);
  });

  it('beside a Hub heard on the LAN, it still names the OAuth variables', async () => {
    await pool.a.patchSettings({ poolLanDiscovery: true });
    const section = pageA.page.locator('section[aria-labelledby="discoverable"]');
    await section.getByRole('button', { name: 'Rescan' }).click();
    await section.locator('li').filter({ hasText: studio.hostLabel }).getByText('Unverified').waitFor();
    assert.equal(await section.getByTestId('discovery-empty').count(), 0, 'the list is not empty');
    assert.match(await section.getByTestId('oauth-hint').innerText(), new RegExp(VARIABLES));
  });

  it("in the setup guide's Find step, a Hub heard on the LAN leaves the empty state and its OAuth note in view", async () => {
    assert.equal((await pool.a.status()).settings.poolLanDiscovery, true, 'still listening on the LAN');
    const a = pageA.page;
    await a.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = a.getByRole('dialog');
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    await guide.locator('p').filter({ hasText: studio.hostLabel }).getByText('Unverified').waitFor();
    const empty = guide.getByTestId('discovery-empty');
    await empty.waitFor();
    assert.match(await empty.innerText(), new RegExp(`No Hubs found[\\s\\S]*Tailscale Admin API: ${VARIABLES}`));
  });
});
