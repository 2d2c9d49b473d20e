/**
 * Two Hubs on one host in one real browser: the dashboards at 127.0.0.1:<a> and 127.0.0.1:<b>.
 * Chromium sends a host's cookies to every port of it, so while every Hub named its session
 * cookie alike, signing in to the second replaced the first's cookie and the first's page fell
 * back to sign-in at its next load. Each Hub's cookie has a name of its own now.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';
import { launchBrowser, openPage, signInByLink } from './browser.js';

describe('dashboard: two Hubs on one host in one browser', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS }, () => {
  let a: HubProcess;
  let b: HubProcess;
  let browser: Browser;

  before(async () => {
    [a, b, browser] = await startTogether([startHubProcess(), startHubProcess(), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), a?.stop(), b?.stop()]);
  });

  it("signing in to the second Hub's dashboard leaves the first's signed in", async () => {
    assert.equal(new URL(a.url).hostname, new URL(b.url).hostname, 'one host, two ports');
    const { page: pageA, context, errors } = await openPage(browser);
    await signInByLink(pageA, a);
    const pageB = await context.newPage();
    await signInByLink(pageB, b);
    assert.equal((await context.cookies()).length, 2, 'one cookie per Hub in the browser');

    await pageA.reload();
    const signedIn = pageA.getByRole('button', { name: 'Sign out' });
    await signedIn.or(pageA.getByLabel('Operator key or API key')).waitFor();
    assert.equal(await signedIn.count(), 1, "A's page is still signed in after B's sign-in");
    // An operator read on A, made with A's session: the Hub log answers only the operator.
    await pageA.getByRole('link', { name: 'Logs' }).click();
    await pageA.getByTestId('hub-log-line').filter({ hasText: 'hub listening' }).first().waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
