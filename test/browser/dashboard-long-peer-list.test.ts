/**
 * On a Hub Pool page with a long list of paired Hubs, in real Chromium against a real Hub on
 * loopback and peers of this build (fakes in this process): each row's Disable and Unpair are
 * named with that row's peer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { FakePeer, fqdn, pairFakeWithPin, POOL, reservePorts, startNamedHub, type HubProcess } from '../integration/pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

const HUB = fqdn('hub-a');
/** Enough rows that the lower ones sit well below the top of the page on a desktop screen. */
const PEER_COUNT = 8;
describe('dashboard: a long Paired Hubs list', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 5 }, () => {
  const fakes = Array.from({ length: PEER_COUNT }, (_, i) => new FakePeer(`peer-${String(i + 1).padStart(2, '0')}`));
  let hub: HubProcess;
  let browser: Browser;
  let page: Page;
  const row = (f: FakePeer) => page.locator(`[data-testid="paired-hub"][data-peer="${f.name}"]`);

  before(async () => {
    await Promise.all(fakes.map((f) => f.start()));
    const ports = await reservePorts(['a']);
    [hub, browser] = await startTogether([
      startNamedHub({ name: HUB, port: ports.a, origins: Object.fromEntries(fakes.map((f) => [f.name, f.origin])) }),
      launchBrowser(),
    ]);
    for (const f of fakes) await pairFakeWithPin(hub, f);
    ({ page } = await openPage(browser));
    await signInByLink(page, hub);
    await gotoPool(page);
    await row(fakes.at(-1)!).waitFor();
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop(), ...fakes.map((f) => f.close())]);
  });

  it("every row's Disable and Unpair are named with its peer, and each pin's Remove with its model, so a screen reader can tell them apart; the visible words stay short", async () => {
    for (const f of fakes) {
      const disable = page.getByRole('button', { name: `Disable ${f.name}`, exact: true });
      const unpair = page.getByRole('button', { name: `Unpair ${f.name}`, exact: true });
      assert.deepEqual([await disable.count(), await unpair.count()], [1, 1], f.name);
      assert.deepEqual([await disable.textContent(), await unpair.textContent()], ['Disable', 'Unpair']);
    }
    assert.equal(await page.getByRole('button', { name: 'Disable', exact: true }).count(), 0, 'no button is named only "Disable"');

    for (const pin of [
      { scope: 'default', target: 'local' },
      { scope: 'model', model: 'pinned:1b', target: fakes[0]!.name },
    ])
      assert.equal((await hub.api('POST', `${POOL}/pins`, pin)).status, 200);
    await page.reload();
    for (const name of ['Remove the pin for every model', 'Remove the pin for pinned:1b']) {
      const remove = page.getByRole('button', { name, exact: true });
      await remove.waitFor();
      assert.equal(await remove.count(), 1, name);
      assert.equal(await remove.textContent(), 'Remove');
    }
  });
});
