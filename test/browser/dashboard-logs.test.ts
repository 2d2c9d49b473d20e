/**
 * The Hub log in the Logs view, in real Chromium against a real Hub: the lines of the Hub's log
 * file (what cihub logs prints), followed live, filtered by level and searched; shown to an
 * operator sign-in only, since a qa:read key reads status and the routing log and nothing else.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { CSRF_TOKEN_STORAGE_KEY, launchBrowser, openPage, screenshot, seriousA11yViolations, signInByKey, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

describe('dashboard: the Hub log', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 4 }, () => {
  let hub: HubProcess;
  let browser: Browser;

  before(async () => {
    [hub, browser] = await startTogether([startHubProcess(), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop()]);
  });

  it('shows the log file’s lines, follows what the Hub writes next, and filters by level and by search', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, hub);
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('heading', { name: 'Hub log' }).waitFor();
    const line = (text: string) => page.getByTestId('hub-log-line').filter({ hasText: text });
    await line('hub listening').first().waitFor();

    // Followed: a line the Hub writes now appears without a reload.
    assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolHealthPollSeconds: 45 })).status, 200);
    await line('pool settings changed').getByText('changed=["poolHealthPollSeconds"]').waitFor();

    // Warnings and errors only: the info lines go, and a warning written now arrives.
    await page.getByLabel('Level').selectOption('warn');
    await line('hub listening').first().waitFor({ state: 'detached' });
    await hub.api('GET', '/api/inference/pool/tailscale'); // no tailscale on this Hub's PATH: it says so at warn
    await line('this Hub counts as not connected to a tailnet').first().waitFor();
    for (const badge of await page.getByTestId('hub-log-line').locator('.badge').allTextContents())
      assert.ok(['warn', 'error', 'fatal'].includes(badge), badge);

    await page.getByLabel('Level').selectOption('info');
    await line('hub listening').first().waitFor();
    await page.getByLabel('Search the Hub log').fill('settings changed');
    await line('hub listening').first().waitFor({ state: 'detached' });
    await line('pool settings changed').first().waitFor();
    await page
      .getByTestId('hub-log-count')
      .getByText(/^\d+ of \d+ lines shown$/)
      .waitFor();

    // Paused, the lines stay; following again brings what the Hub wrote meanwhile.
    await page.getByLabel('Follow (new lines every 2 s)').uncheck();
    await page.getByLabel('Search the Hub log').fill('');
    await line('hub listening').first().waitFor();
    assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolHealthPollSeconds: 55 })).status, 200);
    await page.getByLabel('Follow (new lines every 2 s)').check();
    await line('pool settings changed').nth(1).waitFor();
    await line('hub listening').first().waitFor();

    assert.deepEqual(await seriousA11yViolations(page), [], 'Logs view with the Hub log');
    await screenshot(page, 'hub-log-1440');
    assert.deepEqual(errors, [], 'no console errors');
    await context.close();
  });

  it('a Hub log read that fails is said as an alert, which says the lines shown are from the last read', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, hub);
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByTestId('hub-log-line').filter({ hasText: 'hub listening' }).first().waitFor();
    const logs = '**/api/hub/logs*';
    await page.route(logs, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'HUB_ERR_TEST', message: 'LOG DOWN' } }) }),
    );
    await page.getByRole('alert').getByText('Could not read the Hub log: LOG DOWN. The lines below are from the last read.').waitFor();
    assert.ok((await page.getByTestId('hub-log-line').count()) > 0, 'the lines read before stay');
    await page.unroute(logs);
    await page.getByRole('alert').filter({ hasText: 'Could not read the Hub log' }).waitFor({ state: 'detached' });
    await context.close();
  });

  it('a Hub log whose first read fails counts no lines, since none were read, until a read answers', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, hub);
    const logs = '**/api/hub/logs*';
    await page.route(logs, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'HUB_ERR_TEST', message: 'LOG DOWN' } }) }),
    );
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('alert').getByText('Could not read the Hub log: LOG DOWN.').waitFor();
    assert.equal(await page.getByTestId('hub-log-count').count(), 0, 'no "0 of 0 lines shown" for a log never read');
    await page.unroute(logs);
    await page
      .getByTestId('hub-log-count')
      .getByText(/^[1-9]\d* of \d+ lines shown$/)
      .waitFor();
    await context.close();
  });

  it('a qa:read sign-in sees no Hub log, never asks for it, and is refused when it tries', async () => {
    const minted = await hub.api<{ key: string }>('POST', '/api/hub/api-keys', { name: 'monitor', scope: 'qa:read' });
    const { page, context, errors } = await openPage(browser);
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/hub/logs')) asked.push(r.url());
    });
    await signInByKey(page, hub, minted.json.key);
    await page.getByText('Read-only', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('heading', { name: 'Routing log' }).waitFor();
    await page.getByText('The Hub log is shown to an operator sign-in only').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Hub log' }).count(), 0);
    assert.deepEqual(asked, [], 'the page never asks');

    const tried = (await page.evaluate(`(async () => {
      const res = await fetch('/api/hub/logs', { headers: { 'x-cihub-csrf': localStorage.getItem('${CSRF_TOKEN_STORAGE_KEY}') } });
      return { status: res.status, body: await res.json() };
    })()`)) as { status: number; body: { error: { code: string } } };
    assert.equal(tried.status, 403);
    assert.equal(tried.body.error.code, 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED');
    assert.deepEqual(
      errors.filter((e) => !/403/.test(e)),
      [],
    );
    await context.close();
  });
});
