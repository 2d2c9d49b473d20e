/**
 * The setup guide used from the keyboard alone on a phone-sized screen, in real Chromium against
 * a real Hub on loopback: the opener is reached and pressed with keys, Tab and Shift+Tab stay
 * inside the dialog however far they go, and closing it (Close or Escape) puts focus back on the
 * button that opened it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { answerDiscovery, gotoPool, launchBrowser, openPage, PHONE, signInByLink } from './browser.js';

/** More presses than the Find step has Tab stops, so a leak out of the dialog would show. */
const PRESSES = 30;

const OPENER = 'Set up Hub Pool';

describe('dashboard: the setup guide from the keyboard at 360 px', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
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
