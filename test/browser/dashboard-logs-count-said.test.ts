/**
 * The Logs view's counts and a screen reader, in real Chromium against a real Hub on loopback
 * serving a simulated engine: changing a filter of the Hub log or the routing log tells the new
 * count through a polite live region, and the refresh every 2 s, which moves the count on screen,
 * tells nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Browser, Locator, Page } from 'playwright-core';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { fqdn, POOL, reservePorts, startNamedHub, type HubProcess } from '../integration/pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';
import { DESKTOP, launchBrowser, openPage, signInByLink } from './browser.js';

const MODEL = 'm:1b';

/** Waits until the locator's text is something other than `was`, and returns it. */
async function changedFrom(l: Locator, was: string): Promise<string> {
  await l.filter({ hasNotText: was }).waitFor();
  return (await l.textContent()) ?? '';
}

describe('dashboard: the Logs view tells its counts on a change of filter only', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let engine: SimEngine;
  let hub: HubProcess;
  let browser: Browser;
  let page: Page;
  let client: OpenAI;
  const ask = () => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] });

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    const ports = await reservePorts(['a']);
    [hub, browser] = await startTogether([
      startNamedHub({ name: fqdn('hub-a'), port: ports.a, origins: {}, env: { OLLAMA_URL: engine.url } }),
      launchBrowser(),
    ]);
    client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine', maxRetries: 0 });
    await ask();
    ({ page } = await openPage(browser, DESKTOP));
    await signInByLink(page, hub);
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('region', { name: 'Routing log rows' }).getByText(MODEL).waitFor();
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop(), engine?.close()]);
  });

  it('Hub log: a search or a new level tells the count once it is read; lines that arrive later move the count on screen and tell nothing', async () => {
    const said = page.getByTestId('hub-log-said');
    const shown = page.getByTestId('hub-log-count');
    await shown.getByText(/^\d+ of \d+ lines shown$/).waitFor();
    assert.equal(await said.getAttribute('role'), 'status');
    assert.equal(await said.textContent(), '', 'nothing is told before a filter is changed');

    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 45 })).status, 200);
    await page.getByTestId('hub-log-line').filter({ hasText: 'pool settings changed' }).waitFor();
    await page.getByLabel('Search the Hub log').fill('settings changed');
    await said.getByText(/^[1-9]\d* of \d+ lines shown$/).waitFor();
    const told = (await said.textContent()) ?? '';
    assert.equal(await shown.textContent(), told, 'the count told is the one on screen');
    const read = /of (\d+) lines shown$/.exec(told)![1];
    await page
      .getByTestId('hub-log-search-scope')
      .getByText(`The search covers the ${read} lines read here; cihub logs on the host searches older ones.`, { exact: true })
      .waitFor();

    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 55 })).status, 200);
    await changedFrom(shown, told);
    assert.equal(await said.textContent(), told, 'a refresh tells nothing');

    // The settings lines are at info: at warn none is left, and the count told is the new read's, never the old lines' count.
    await page.getByLabel('Level').selectOption('warn');
    await said.getByText(/^0 of \d+ lines shown$/).waitFor();
    assert.equal(await shown.textContent(), await said.textContent());
  });

  it('Routing log: the filter and the failures switch tell the count; a row routed later moves the count on screen and tells nothing', async () => {
    const said = page.getByTestId('routing-log-said');
    const shown = page.getByText(/^Showing \d+ of \d+$/);
    assert.equal(await said.textContent(), '', 'nothing is told before a filter is changed');

    await page.getByLabel('Filter', { exact: true }).fill(MODEL);
    await said.getByText('1 of 1 routing decisions shown').waitFor();

    await ask();
    await page.getByText('Showing 2 of 2').waitFor();
    assert.equal(await said.textContent(), '1 of 1 routing decisions shown', 'a refresh tells nothing');

    await page.getByLabel('Only failures and failovers').check();
    await said.getByText('0 of 2 routing decisions shown').waitFor();
    assert.equal(await shown.textContent(), 'Showing 0 of 2');
  });
});
