/**
 * What a phone shows and a screen reader says, in real Chromium at 360 px against one real Hub
 * with a simulated engine: the first-byte chart's axis labels at a size a phone can read, the
 * first-byte figures saying what they count, the Pairing PIN read digit by digit, and each
 * Controls Save named with the field it saves.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { chat, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { startTogether } from '../helpers/start-together.js';
import { gotoPool, launchBrowser, openPage, PHONE, signInByLink } from './browser.js';

const MODEL = 'm-a:1b';
/** Requests served before the page opens. */
const SERVED = 2;
/** The smallest text this test takes as readable on a phone held at arm's length, in CSS pixels. */
const LEGIBLE_TEXT_PX = 11;
const NUMBER_FIELDS = [
  'Local affinity (queued requests)',
  'Health check interval (seconds)',
  'Prefix affinity limit (queued requests; 0 is off)',
  'Prefix affinity margin (queued requests)',
];

describe('dashboard: read on a phone and by a screen reader', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 4 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  let page: Page;

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: { ollama: { models: [MODEL] } } }, pairs: [] }), launchBrowser()]);
    for (let i = 0; i < SERVED; i++) assert.equal((await chat(pool.a, MODEL)).status, 200);
    ({ page } = await openPage(browser, PHONE));
    await signInByLink(page, pool.a.process);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it("Resources says what its first-byte figures count: the median and p90 of this Hub's card are over 2 requests", async () => {
    await page.getByRole('link', { name: 'Resources' }).click();
    const card = page.locator('[data-testid="resource-card"][data-node="local"]');
    await card.getByText(new RegExp(`^median [\\d.]+ m?s, p90 [\\d.]+ m?s over ${SERVED} requests$`)).waitFor();
  });

  it('the first-byte chart labels its axes in text a phone can read', async () => {
    await page.getByRole('link', { name: 'Resources' }).click();
    const chart = page.getByTestId('first-byte-chart');
    await chart.locator('g[data-node="local"]').waitFor();
    // The size on screen: the label's font size in the drawing's units times the drawing's scale.
    const sizes = (await page.evaluate(`(() => {
      const svg = document.querySelector('[data-testid="first-byte-chart"]');
      return [...svg.querySelectorAll('text')].map((t) => ({ text: t.textContent, px: Number(t.getAttribute('font-size')) * svg.getScreenCTM().a }));
    })()`)) as { text: string; px: number }[];
    assert.deepEqual(
      sizes.map((s) => s.text),
      [sizes[0]!.text, '0', '30 min ago', 'now'],
    );
    for (const s of sizes) assert.ok(s.px >= LEGIBLE_TEXT_PX, `"${s.text}" is ${s.px.toFixed(1)} px on screen`);
  });

  it('the PIN is read digit by digit, and its large digits are not read as one number', async () => {
    await gotoPool(page);
    const card = page.locator('section[aria-labelledby="pairing-pin"]');
    const minted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/pairing-pin'));
    await card.getByRole('button', { name: 'Generate PIN' }).click();
    const { pin } = (await (await minted).json()) as { pin: string };
    await card.getByTestId('pin-digits').getByText(pin, { exact: true }).waitFor();
    const read = await card.ariaSnapshot();
    assert.ok(read.includes(`PIN ${pin.split('').join(' ')}`), read);
    assert.ok(!read.includes(pin), `the six digits are not read as one number:\n${read}`);
  });

  it('each Controls Save is named with the field it saves', async () => {
    const controls = page.locator('section[aria-labelledby="controls"]');
    for (const label of NUMBER_FIELDS) assert.equal(await controls.getByRole('button', { name: `Save ${label}`, exact: true }).count(), 1, label);
    assert.equal(await controls.getByRole('button', { name: 'Save', exact: true }).count(), 0, 'no button is named only "Save"');
  });
});
