/**
 * Two tabs of one browser on one Hub, the second signed in by a one-time link. Signing in again closes the session the cookie named, so a
 * call the first tab had already sent arrives with a closed session's cookie and token and is
 * refused (the browser sends the cookie it holds by then, the second session's, beside the first's
 * token). The page then finds the second tab's token stored and makes the call once more with
 * it; it must not drop that token, which signed both tabs out.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Route } from 'playwright-core';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';
import { launchBrowser, openPage, signInByKey, signInByLink, storedCsrfToken } from './browser.js';

describe('dashboard: a second tab signing in while the first has a call out', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let hub: HubProcess;
  let browser: Browser;

  before(async () => {
    [hub, browser] = await startTogether([startHubProcess(), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop()]);
  });

  it("keeps both tabs signed in: the refused call is made again with the second tab's token, which stays stored", async () => {
    const { page: first, context, errors } = await openPage(browser);
    await signInByKey(first, hub, hub.operatorKey);
    await first.getByRole('button', { name: 'Sign out' }).waitFor();

    // Hold the first tab's next status read in the browser, already sent with the first session.
    let held: (route: Route) => void = () => undefined;
    const heldRead = new Promise<Route>((resolve) => (held = resolve));
    await first.route('**/api/inference/pool/status', (route) => held(route), { times: 1 });
    await first.getByRole('link', { name: 'Hub Pool', exact: true }).click();
    const route = await heldRead;

    // A one-time link opened in a second tab (the first tab's session would sign it in as it is).
    const second = await context.newPage();
    await signInByLink(second, hub);
    const token = await storedCsrfToken(second);

    // Refused: the cookie the browser now holds is the second session's, the token the first's.
    const refused = first.waitForResponse((r) => r.url().endsWith('/api/inference/pool/status') && (r.status() === 401 || r.status() === 403));
    await route.continue();
    await refused;
    // The read made again with the stored token: the page shows the pool, not sign-in.
    await first.waitForResponse((r) => r.url().endsWith('/api/inference/pool/status') && r.status() === 200);
    assert.equal(await first.getByLabel('Operator key or API key').count(), 0, 'the first tab stays signed in');
    assert.equal(await storedCsrfToken(second), token, "the second tab's token is still stored");
    await second.reload();
    await second.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.deepEqual(
      errors.filter((e) => !/40[13]/.test(e)),
      [],
    );
    await context.close();
  });
});
