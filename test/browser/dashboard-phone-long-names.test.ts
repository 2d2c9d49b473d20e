/**
 * The dashboard on a phone-sized screen (360 px) when names are long, in real Chromium against a
 * real Hub on loopback: a peer with a long tailnet name, an engine with a long model name, and a
 * routing log with a row for it. Nothing may push a page sideways, and every table that is wider
 * than the screen scrolls in a box a keyboard can reach and scroll.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { FakePeer, fqdn, pairFakeWithPin, reservePorts, startNamedHub, type HubProcess } from '../integration/pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';
import { gotoPool, launchBrowser, openPage, overflowsSideways, PHONE, seriousA11yViolations, signInByLink, untilTrueInPage } from './browser.js';

const HUB = fqdn('hub-a');
const LONG_MODEL = 'hf.co/some-publisher/A-Very-Long-Model-Repository-Name-Instruct-GGUF:Q4_K_M';

describe('dashboard: a phone-sized screen with long names', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  const peer = new FakePeer('a-peer-whose-device-name-is-longer-than-a-phone-screen-is-wide');
  let engine: SimEngine;
  let hub: HubProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    await peer.start();
    engine = await startSimEngine({ dialect: 'ollama', models: [LONG_MODEL], timeScale: 0.01 });
    const ports = await reservePorts(['a']);
    [hub, browser] = await startTogether([
      startNamedHub({ name: HUB, port: ports.a, origins: { [peer.name]: peer.origin }, env: { OLLAMA_URL: engine.url } }),
      launchBrowser(),
    ]);
    await pairFakeWithPin(hub, peer);
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine', maxRetries: 0 });
    await client.chat.completions.create({ model: LONG_MODEL, messages: [{ role: 'user', content: 'hello' }] });
    ({ page } = await openPage(browser, PHONE));
    await signInByLink(page, hub);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop(), peer.close(), engine?.close()]);
  });

  it('the Hub Pool page, whose Routing pins list the long peer name, does not scroll sideways', async () => {
    await gotoPool(page);
    await page.locator('#pin-target option', { hasText: peer.name }).waitFor({ state: 'attached' });
    assert.equal(await overflowsSideways(page), false);
  });

  it('the Logs page has no serious accessibility failure, and Tab then the arrow keys scroll the routing log table', async () => {
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('region', { name: 'Routing log rows' }).getByText(LONG_MODEL).waitFor();
    assert.equal(await overflowsSideways(page), false);
    assert.deepEqual(await seriousA11yViolations(page), []);

    await page.getByLabel('Only failures and failovers').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.getAttribute("aria-label")'), 'Routing log rows', 'the next Tab lands on the table box');
    await page.keyboard.press('ArrowRight');
    await untilTrueInPage(page, 'document.activeElement.scrollLeft > 0');
  });
});
