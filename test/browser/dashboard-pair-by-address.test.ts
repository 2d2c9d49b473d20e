/**
 * An address typed where the dashboard asks for a tailnet name, in real Chromium against one
 * real Hub. The Hub refuses it before sending anything (a peer is stored under its name), and a
 * Hub known only by address is paired from the command line with a PIN (spec, "Operator
 * workflow"), so the page says that and gives the two commands, rather than telling the operator
 * to check whether the other Hub is online.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink, type WatchedPage } from './browser.js';
import { startTogether } from '../helpers/start-together.js';
import { FakePeer } from '../integration/pairing-fixtures.js';

const ADDRESS = '192.168.1.42';
/** A name under no tailnet suffix: the Hub refuses it before dialling anything. */
const LAN_NAME = 'nas.lan';

describe('dashboard: an address typed as a Hub name', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 5 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  let watched: WatchedPage;

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: {} }, pairs: [] }), launchBrowser()]);
    watched = await openPage(browser);
    await signInByLink(watched.page, pool.a.process);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('on the Hub Pool page: Not sent, with the probe and pair-by-address commands for that address', async () => {
    const page = watched.page;
    await gotoPool(page);
    await page.getByLabel("Other Hub's tailnet name").fill(`${ADDRESS}:5002`);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByText(/^Not sent\. /).waitFor();
    await page.getByText(`cihub pool probe ${ADDRESS}:5002`, { exact: false }).waitFor();
    await page.getByText(`cihub pool pair ${ADDRESS}:5002 --pin`, { exact: false }).waitFor();
    assert.equal(await page.getByText(/Could not reach the Hub/).count(), 0, 'nothing was sent, so reachability is not the question');
    assert.deepEqual((await pool.a.api<{ peers: unknown[] }>('GET', `${POOL_API}/peers`)).json.peers, [], 'no row is kept for an address');
  });

  it('on the Hub Pool page: a LAN host name gets the same commands, refused by this Hub as outside its tailnet', async () => {
    const page = watched.page;
    await gotoPool(page);
    await page.getByLabel("Other Hub's tailnet name").fill(LAN_NAME);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.getByText(`cihub pool probe ${LAN_NAME},`, { exact: false }).waitFor();
    await page.getByText(`cihub pool pair ${LAN_NAME} --pin`, { exact: false }).waitFor();
    assert.equal(await page.getByText(/Could not reach the Hub/).count(), 0, 'nothing was sent, so reachability is not the question');
    assert.deepEqual((await pool.a.api<{ peers: unknown[] }>('GET', `${POOL_API}/peers`)).json.peers, [], 'no row is kept for it');
  });

  // Found by typing a device's short name, as Tailscale's own lists show it: the page told the
  // operator to check that the other Hub was online, though this Hub had refused the name itself.
  for (const [what, typed, says] of [
    ['a short device name with no tailnet', 'hub-b', /Not sent\. That is not a tailnet name, so nothing was sent\. /],
    ["this Hub's own name", 'hub-a.tail0.ts.net', /Not sent\. That is this Hub’s own name, so nothing was sent\. /],
    ['a name on another tailnet', 'hub-z.other.ts.net', /Not sent\. That Hub is on another tailnet, so nothing was sent\. .*same tailnet/],
  ] as const) {
    it(`on the Hub Pool page: ${what} is Not sent, saying what was wrong with it, not to check the other Hub`, async () => {
      const page = watched.page;
      await gotoPool(page);
      await page.getByLabel("Other Hub's tailnet name").fill(typed);
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      await page.getByRole('alert').getByText(says).waitFor();
      assert.equal(await page.getByText(/Could not reach the Hub/).count(), 0, 'nothing was sent, so reachability is not the question');
      assert.deepEqual((await pool.a.api<{ peers: unknown[] }>('GET', `${POOL_API}/peers`)).json.peers, [], 'no row is kept');
    });
  }

  it('in the setup guide: the per-Hub result says the same for an address added by hand', async () => {
    const page = watched.page;
    await gotoPool(page);
    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    await guide.getByLabel('Add a Hub by its tailnet name').fill(ADDRESS);
    await guide.getByRole('button', { name: 'Add', exact: true }).click();
    await guide.getByRole('button', { name: 'Send 1 request' }).click();
    const row = guide.getByTestId('connect-result').filter({ hasText: ADDRESS });
    await row.getByText('Not sent').waitFor();
    await row.getByText(`cihub pool pair ${ADDRESS} --pin`, { exact: false }).waitFor();
    assert.equal(await row.getByText(/Could not reach the Hub/).count(), 0);
  });

  // This Hub's own conflict (a request for the name already waits here) was worded as the other
  // Hub unreachable or declining, and the guide offered a Retry that could only meet it again.
  describe('a name this Hub already holds a request for', () => {
    const asker = new FakePeer('hub-asker');
    const CONFLICT = /^This Hub refused the request itself: .*so the other Hub is not the one to check\. Sending the same request again meets the same refusal/;
    before(async () => {
      assert.equal((await asker.requestPairing(pool.a.process)).status, 200, 'the request waits here, from that name');
    });

    it('on the Hub Pool page: Not sent, worded as this Hub’s own refusal, with its reason beneath', async () => {
      const page = watched.page;
      // The guide the test before left open would cover the page.
      await page.reload();
      await gotoPool(page);
      await page.getByLabel("Other Hub's tailnet name").fill(asker.name);
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      const alert = page.getByRole('alert').filter({ hasText: /^Not sent\. / });
      await alert.getByText(/^The Hub said: .*has already asked to pair with this Hub/).waitFor();
      assert.match((await alert.innerText()).replace(/^Not sent\. /, ''), CONFLICT);
      assert.equal(await page.getByText(/Could not reach the Hub/).count(), 0, 'nothing was sent, so reachability is not the question');
    });

    it('in the setup guide: the same words on Connect and Approve, and no Retry, which could only meet the same refusal', async () => {
      const page = watched.page;
      await gotoPool(page);
      await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
      const guide = page.getByRole('dialog');
      // With a request waiting here the guide opens on Approve.
      await guide.getByRole('button', { name: 'Add another Hub' }).click();
      await guide.getByLabel('Add a Hub by its tailnet name').fill(asker.name);
      await guide.getByRole('button', { name: 'Add', exact: true }).click();
      await guide.getByRole('button', { name: 'Send 1 request' }).click();
      const row = guide.getByTestId('connect-result').filter({ hasText: asker.name });
      await row.getByText('Not sent').waitFor();
      await row.getByText(CONFLICT).waitFor();
      assert.equal(await row.getByText(/Could not reach the Hub/).count(), 0);
      assert.equal(await row.getByRole('button', { name: 'Retry' }).count(), 0, 'no Retry in the row');
      assert.equal(await guide.getByRole('button', { name: 'Retry failed requests' }).count(), 0, 'no Retry failed requests');

      await guide.getByRole('button', { name: 'Continue' }).click();
      const notSent = guide.getByTestId('guide-not-sent').filter({ hasText: asker.name });
      await notSent.getByText(CONFLICT).waitFor();
      assert.equal(await notSent.getByRole('button', { name: 'Retry' }).count(), 0, 'no Retry on Approve');
      await guide.getByRole('button', { name: 'Close the setup guide' }).click();
    });
  });
});
