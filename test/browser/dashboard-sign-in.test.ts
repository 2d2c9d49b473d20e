/**
 * The dashboard on one real Hub, in real Chromium: what a signed-out browser gets, the two ways
 * to sign in, what the session cookie is and is not enough for, a read-only sign-in that cannot
 * write, accessibility (axe-core), layout at phone and desktop widths, and the first render of
 * the Hub Pool page (measured and printed, not asserted).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { Browser } from 'playwright-core';
import { HeldRequests, POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import {
  CSRF_TOKEN_STORAGE_KEY,
  DESKTOP,
  gotoPool,
  launchBrowser,
  openPage,
  overflowsSideways,
  PHONE,
  screenshot,
  seriousA11yViolations,
  signInByKey,
  signInByLink,
  signInLink,
  storedCsrfToken,
  untilTrueInPage,
} from './browser.js';
import { startTogether } from '../helpers/start-together.js';
import { sessionCookieName } from '../../src/dashboard/cookies.js';

const MODEL = 'dash-model:1b';

describe('dashboard: sign-in, sessions and the page itself', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 8 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: { ollama: { models: [MODEL] } } }, pairs: [] }), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('serves the built app at / (index revalidated, hashed assets cached a year) and no pool data signed out', async () => {
    const index = await request(`${pool.a.url}/`);
    assert.equal(index.statusCode, 200);
    assert.equal(index.headers['cache-control'], 'no-cache');
    assert.match(String(index.headers['content-security-policy']), /default-src 'self'/);
    const html = await index.body.text();
    const asset = /\/assets\/[A-Za-z0-9_.-]+\.js/.exec(html)?.[0];
    assert.ok(asset, 'index.html names a hashed script');
    const js = await request(`${pool.a.url}${asset}`);
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['cache-control']), /max-age=31536000, immutable/);
    await js.body.dump();
    for (const path of [`${POOL_API}/status`, `${POOL_API}/routing-log`, `${POOL_API}/peers`]) {
      const res = await request(`${pool.a.url}${path}`);
      assert.equal(res.statusCode, 401, `${path} signed out`);
      await res.body.dump();
    }

    const { page, context, errors } = await openPage(browser);
    await page.goto(`${pool.a.url}/`);
    await page.getByLabel('Operator key or API key').waitFor();
    assert.equal(await page.getByTestId('pool-badge').count(), 0, 'no pool data on the sign-in page');
    assert.equal(await page.getByText(MODEL).count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a one-time link from `cihub dashboard` signs in once, with an HttpOnly SameSite=Strict cookie', async () => {
    const link = await signInLink(pool.a.process);
    const { page, context, errors } = await openPage(browser);
    await page.goto(link);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === sessionCookieName(pool.a.process.operatorKey));
    assert.ok(cookie, 'a session cookie');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(await page.evaluate('document.cookie'), '', 'the page script cannot read it');

    const second = await openPage(browser);
    await second.page.goto(link);
    await second.page.getByText('That sign-in link was already used or has expired').waitFor();
    assert.equal(await second.page.getByRole('button', { name: 'Sign out' }).count(), 0);
    await second.context.close();

    // Sign out ends the session on the Hub, not only in this tab.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Operator key or API key').waitFor();
    const replay = await request(`${pool.a.url}${POOL_API}/status`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    assert.equal(replay.statusCode, 401);
    await replay.body.dump();
    assert.deepEqual(
      errors.filter((e) => !e.includes('401')),
      [],
    );
    await context.close();
  });

  it('a one-time link lands signed in with its token gone from the address bar, and a reload stays signed in', async () => {
    const link = await signInLink(pool.a.process);
    const { page, context, errors } = await openPage(browser);
    const landed = await page.goto(link);
    // The landing only forwards the token in a fragment; the page spends it.
    const landing = await landed?.request().redirectedFrom()?.response();
    assert.match(String(landing?.headers().location), /^\/#signin-link=[A-Za-z0-9_-]+$/);
    assert.equal(landing?.headers()['set-cookie'], undefined, 'the GET signs nobody in');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(page.url(), `${pool.a.url}/`, 'no token left in the address bar');
    assert.equal(await page.evaluate('location.hash'), '');
    const token = await storedCsrfToken(page);

    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(await page.getByLabel('Operator key or API key').count(), 0, 'still signed in after a reload');
    assert.equal(await storedCsrfToken(page), token);

    // A token the Hub no longer takes (this browser signed in again elsewhere, say) sends the page to sign-in and is dropped.
    await page.evaluate(`localStorage.setItem('${CSRF_TOKEN_STORAGE_KEY}', '${'x'.repeat(43)}')`);
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByLabel('Operator key or API key').waitFor();
    assert.equal(await page.evaluate(`localStorage.getItem('${CSRF_TOKEN_STORAGE_KEY}')`), null);
    assert.deepEqual(
      errors.filter((e) => !e.includes('403')),
      [],
    );
    await context.close();
  });

  it('signing out drops the stored token, and a page opened with a stale one shows sign-in', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Operator key or API key').waitFor();
    assert.equal(await page.evaluate(`localStorage.getItem('${CSRF_TOKEN_STORAGE_KEY}')`), null);

    // As after a Hub restart: the cookie and token of a session the Hub no longer holds.
    await page.evaluate(`localStorage.setItem('${CSRF_TOKEN_STORAGE_KEY}', '${'y'.repeat(43)}')`);
    await page.reload();
    await page.getByLabel('Operator key or API key').waitFor();
    assert.equal(await page.evaluate(`localStorage.getItem('${CSRF_TOKEN_STORAGE_KEY}')`), null);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a refused link leaves the session this browser holds standing, and a browser that refuses storage still signs in', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    // A spent or mangled link opened in another tab of the same browser.
    const second = await context.newPage();
    await second.goto(`${pool.a.url}/#signin-link=spent`);
    await second.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(await second.getByLabel('Operator key or API key').count(), 0, 'still signed in, not sent to sign-in');
    await context.close();

    // A hardened profile: every touch of localStorage throws. The token lives in the page's memory.
    const hardened = await openPage(browser);
    await hardened.context.addInitScript({
      content: "Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('storage is switched off', 'SecurityError'); } });",
    });
    await signInByLink(hardened.page, pool.a.process);
    await hardened.page.getByRole('link', { name: 'Logs' }).click();
    // The Hub log is an operator read: it shows only when the call carried the token kept in memory.
    await hardened.page.getByTestId('hub-log-line').filter({ hasText: 'hub listening' }).first().waitFor();
    assert.equal(await hardened.page.getByLabel('Operator key or API key').count(), 0);
    assert.deepEqual([...errors, ...hardened.errors], []);
    await hardened.context.close();
  });

  it('the cookie alone writes nothing: the CSRF token header and this origin are required', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    const cookie = (await context.cookies()).find((c) => c.name === sessionCookieName(pool.a.process.operatorKey))!;
    const session = { csrfToken: await storedCsrfToken(page) };

    const patch = (headers: Record<string, string>) =>
      request(`${pool.a.url}${POOL_API}/settings`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', cookie: `${cookie.name}=${cookie.value}`, host: new URL(pool.a.url).host, ...headers },
        body: JSON.stringify({ poolLocalAffinity: 2 }),
      });
    const cases: readonly [string, Record<string, string>, number, string | null][] = [
      ['no token', {}, 403, 'HUB_ERR_CSRF_REFUSED'],
      ['a wrong token', { 'x-cihub-csrf': 'x'.repeat(43) }, 403, 'HUB_ERR_CSRF_REFUSED'],
      ['the token from a page on another port (same site, other origin)', { 'x-cihub-csrf': session.csrfToken, origin: 'http://127.0.0.1:1' }, 403, null],
      ['the token from this origin', { 'x-cihub-csrf': session.csrfToken, origin: new URL(pool.a.url).origin }, 200, null],
    ];
    for (const [name, headers, status, code] of cases) {
      const res = await patch(headers);
      const body = (await res.body.json()) as { error?: { code: string } };
      assert.equal(res.statusCode, status, `${name}: ${JSON.stringify(body)}`);
      if (code !== null) assert.equal(body.error?.code, code, name);
    }
    assert.equal((await pool.a.status()).settings.poolLocalAffinity, 2, 'only the last one wrote');
    await pool.a.patchSettings({ poolLocalAffinity: 1 });
    await context.close();
  });

  it('a qa:read key signs in read-only: no write controls, and the Hub refuses its writes', async () => {
    const minted = await pool.a.api<{ key: string }>('POST', '/api/hub/api-keys', { name: 'monitor', scope: 'qa:read' });
    assert.equal(minted.status, 201);
    const inference = await pool.a.api<{ key: string }>('POST', '/api/hub/api-keys', { name: 'app', scope: 'inference' });

    const { page, context, errors } = await openPage(browser);
    await signInByKey(page, pool.a.process, inference.json.key);
    await page.getByText('an inference key admits apps to the proxy').waitFor();

    await page.getByLabel('Operator key or API key').fill(minted.json.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Read-only', { exact: true }).waitFor();
    await gotoPool(page);
    await page.getByRole('heading', { name: 'Paired Hubs' }).waitFor();
    for (const control of ['Generate PIN', 'Set up Hub Pool', 'Pair', 'Rescan', 'Add pin', 'Save']) {
      assert.equal(await page.getByRole('button', { name: control, exact: true }).count(), 0, `no ${control} button`);
    }
    assert.equal(await page.getByRole('switch', { name: 'Hub Pool' }).isDisabled(), true, 'switches are shown, not usable');

    const write = (await page.evaluate(`(async () => {
      const r = await fetch('${POOL_API}/pairing-pin', { method: 'POST', headers: { 'x-cihub-csrf': localStorage.getItem('${CSRF_TOKEN_STORAGE_KEY}') } });
      return { status: r.status, body: await r.json() };
    })()`)) as { status: number; body: { error: { code: string } } };
    assert.equal(write.status, 403);
    assert.equal(write.body.error.code, 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED');
    assert.equal((await pool.a.status()).pairingPin.active, false, 'no PIN was minted');
    assert.deepEqual(
      errors.filter((e) => !/40[13]/.test(e)),
      [],
    );
    await context.close();
  });

  it('the Logs view words a hang-up as "No node served this row" and still names the node that was working on it', async () => {
    await pool.a.engines.ollama!.setFault({ mode: 'hang', model: MODEL, count: 1 });
    const held = new HeldRequests(pool.a, MODEL);
    await held.hold(1);
    await held.releaseAll();
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByLabel('Only failures and failovers').check();
    await page.getByText('No node served this row (the app closed its connection while local was working on it)').waitFor();
    await page.getByLabel('Filter').fill('no-such-model');
    await page.getByText('Showing 0 of').waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('is accessible (axe-core: no serious violations), keeps its layout from 360 to 1440 px, and logs no console errors', async () => {
    const { page, context, errors } = await openPage(browser, DESKTOP);
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    await page.getByText(MODEL).first().waitFor();

    // First render of the Hub Pool page: navigation start to the badge, reported only.
    await page.goto(`${pool.a.url}/#/pool`);
    await page.getByTestId('pool-badge').waitFor();
    const firstRenderMs = (await page.evaluate('performance.now()')) as number;
    process.stdout.write(`# first render of the Hub Pool page: ${Math.round(firstRenderMs)} ms\n`);

    assert.deepEqual(await seriousA11yViolations(page), [], 'Hub Pool page');
    await screenshot(page, 'hub-pool-1440');
    // Dark mode follows the system, and keeps its contrast.
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor'), 'rgb(17, 20, 24)');
    assert.deepEqual(await seriousA11yViolations(page), [], 'Hub Pool page, dark');
    await screenshot(page, 'hub-pool-dark-1440');
    await page.emulateMedia({ colorScheme: 'light' });
    for (const width of [PHONE.width, 768, 1024, DESKTOP.width]) {
      await page.setViewportSize({ width, height: 900 });
      assert.equal(await overflowsSideways(page), false, `no sideways scroll at ${width} px`);
    }
    await page.setViewportSize(PHONE);
    await screenshot(page, 'hub-pool-360');

    // Keyboard only: Enter on the focused button opens the guide, focus lands on its heading, and Tab stays inside it.
    await page.getByRole('button', { name: 'Set up Hub Pool' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await untilTrueInPage(page, 'document.activeElement?.id === "guide-title"');
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      assert.equal(
        await page.evaluate('document.activeElement?.closest("[role=dialog]") !== null || document.activeElement === document.body'),
        true,
        `Tab ${i + 1} stays in the dialog`,
      );
    }
    await page.getByTestId('phone-steps').getByText('Step 1 of 4 · Check').waitFor();
    assert.equal(await overflowsSideways(page), false, 'guide at 360 px');
    await screenshot(page, 'guide-360');
    assert.deepEqual(await seriousA11yViolations(page), [], 'setup guide');

    // Keyboard: Escape closes the guide.
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.setViewportSize(DESKTOP);
    for (const hash of ['#/', '#/resources', '#/logs']) {
      await page.goto(`${pool.a.url}/${hash}`);
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await page.locator('main h2').first().waitFor();
      assert.deepEqual(await seriousA11yViolations(page), [], hash);
    }
    await screenshot(page, 'resources-1440');
    assert.deepEqual(errors, [], 'no console errors');
    await context.close();
  });
});
