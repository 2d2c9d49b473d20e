/**
 * The setup guide used from the keyboard alone on a phone-sized screen, in real Chromium against
 * a real Hub on loopback: the opener is reached and pressed with keys, Tab and Shift+Tab stay
 * inside the dialog however far they go, and closing it (Close or Escape) puts focus back on the
 * button that opened it. Opened while the Hub is slow to answer status (the page holds the read),
 * the dialog is there at once, saying it is reading, with focus in it and Close to leave.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { answerDiscovery, gotoPool, launchBrowser, openPage, PHONE, signInByLink, untilTrueInPage } from './browser.js';

/** More presses than the Find step has Tab stops, so a leak out of the dialog would show. */
const PRESSES = 30;

const OPENER = 'Set up Hub Pool';

describe('dashboard: the setup guide from the keyboard at 360 px', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 3 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: {} }, pairs: [] }), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  /** Focuses the opener and presses Enter on it, as a keyboard user would; returns at the Find step. */
  async function openFromKeyboard(page: Page) {
    await signInByLink(page, pool.a.process);
    await answerDiscovery(page, []);
    await gotoPool(page);
    const opener = page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: OPENER });
    await opener.focus();
    await page.keyboard.press('Enter');
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    await guide.getByRole('button', { name: 'Rescan' }).waitFor();
    return guide;
  }

  const focusInDialog = (page: Page): Promise<boolean> =>
    page.evaluate('document.querySelector(\'[role="dialog"]\')?.contains(document.activeElement) === true') as Promise<boolean>;
  /** The focused element's text, or "<body>" when focus fell out of every control. */
  const focusedName = (page: Page): Promise<string> =>
    page.evaluate('document.activeElement === document.body ? "<body>" : (document.activeElement?.textContent ?? "").trim().slice(0, 80)') as Promise<string>;

  it('Tab and Shift+Tab never leave the dialog', async () => {
    const { page, context } = await openPage(browser, PHONE);
    await openFromKeyboard(page);
    for (const key of ['Tab', 'Shift+Tab']) {
      for (let i = 0; i < PRESSES; i += 1) {
        await page.keyboard.press(key);
        assert.equal(await focusInDialog(page), true, `after ${i + 1} × ${key}, focus is on "${await focusedName(page)}", outside the dialog`);
      }
    }
    await context.close();
  });

  it("opened while status is slow to answer, the guide is already a dialog: focus on its title, a status saying it is reading this Hub's state, Tab on Close, and Escape leaves it", async () => {
    const { page, context } = await openPage(browser, PHONE);
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    // Every status read from here on waits until the test lets it go: the Hub, slow to answer, as the guide meets it.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(`**${POOL_API}/status`, async (route) => {
      await released;
      await route.continue();
    });
    try {
      await page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: OPENER }).focus();
      await page.keyboard.press('Enter');
      const guide = page.getByRole('dialog', { name: 'Set up Hub Pool' });
      await guide.getByRole('status').getByText("Reading this Hub's state…").waitFor();
      await untilTrueInPage(page, 'document.activeElement?.id === "guide-title"');
      await page.keyboard.press('Tab');
      assert.equal(await focusedName(page), 'Close', 'the one way on while it reads');
      await page.keyboard.press('Tab');
      assert.equal(await focusInDialog(page), true, `Tab wraps inside the dialog, not to "${await focusedName(page)}"`);
      await page.keyboard.press('Escape');
      await guide.waitFor({ state: 'detached' });
      assert.equal(await focusedName(page), OPENER, 'back on the opener');
    } finally {
      release();
      await page.unrouteAll({ behavior: 'wait' });
    }
    await context.close();
  });

  it('Close and Escape each hand focus back to the button that opened the guide', async () => {
    const { page, context } = await openPage(browser, PHONE);
    const guide = await openFromKeyboard(page);
    await guide.getByRole('button', { name: 'Close the setup guide' }).focus();
    await page.keyboard.press('Enter');
    await guide.waitFor({ state: 'detached' });
    assert.equal(await focusedName(page), OPENER, 'after Close');

    await page.keyboard.press('Enter');
    await guide.getByRole('heading', { name: 'Set up Hub Pool' }).waitFor();
    await page.keyboard.press('Escape');
    await guide.waitFor({ state: 'detached' });
    assert.equal(await focusedName(page), OPENER, 'after Escape');
    await context.close();
  });
});
