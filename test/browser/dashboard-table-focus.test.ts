/**
 * A table's scroll box is a Tab stop only while the table is wider than the box, in real Chromium
 * against a real Hub on loopback that has routed one request: on a desktop screen the Logs view's
 * routing log table fits and is no Tab stop; narrowed to a phone's width it overflows, and the box
 * takes focus and scrolls with the arrow keys; widened again, it is no Tab stop again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { fqdn, reservePorts, startNamedHub, type HubProcess } from '../integration/pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';
import { DESKTOP, launchBrowser, openPage, PHONE, signInByLink, untilTrueInPage } from './browser.js';

const MODEL = 'm:1b';
const TABLE = 'Routing log rows';
/** The box as the page's own code can find it (the expression runs inside the page). */
const BOX = `document.querySelector('[role="region"][aria-label="${TABLE}"]')`;

describe('dashboard: a table box is a Tab stop only while it overflows', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let engine: SimEngine;
  let hub: HubProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    const ports = await reservePorts(['a']);
    [hub, browser] = await startTogether([
      startNamedHub({ name: fqdn('hub-a'), port: ports.a, origins: {}, env: { OLLAMA_URL: engine.url } }),
      launchBrowser(),
    ]);
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine', maxRetries: 0 });
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] });
    ({ page } = await openPage(browser, DESKTOP));
    await signInByLink(page, hub);
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('region', { name: TABLE }).getByText(MODEL).waitFor();
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop(), engine?.close()]);
  });

  it('on a desktop screen the table fits, and Tab passes its box by', async () => {
    const box = page.getByRole('region', { name: TABLE });
    assert.equal(await box.evaluate((el) => el.scrollWidth > el.clientWidth), false, 'the table fits at 1440 px');
    assert.equal(await box.getAttribute('tabindex'), null);
    await page.getByLabel('Only failures and failovers').focus();
    await page.keyboard.press('Tab');
    assert.notEqual(await page.evaluate('document.activeElement?.getAttribute("aria-label")'), TABLE, 'Tab passes the box by');
  });

  it('narrowed to a phone it overflows: the box is a Tab stop and the arrow keys scroll it; widened again, it is not', async () => {
    const box = page.getByRole('region', { name: TABLE });
    await page.setViewportSize(PHONE);
    await untilTrueInPage(page, `${BOX}.getAttribute('tabindex') === '0'`);
    assert.equal(await box.evaluate((el) => el.scrollWidth > el.clientWidth), true, 'the table is wider than the box at 360 px');
    await box.focus();
    await page.keyboard.press('ArrowRight');
    await untilTrueInPage(page, `${BOX}.scrollLeft > 0`);

    await page.setViewportSize(DESKTOP);
    await untilTrueInPage(page, `!${BOX}.hasAttribute('tabindex')`);
  });
});
