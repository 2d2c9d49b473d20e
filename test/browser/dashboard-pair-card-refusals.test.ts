/**
 * The Hub Pool page's "Send a request" card when the other Hub turns the request down, in real
 * Chromium against two real Hubs on loopback: a refused PIN is named as the cause, and a request
 * declined for another reason (here, Hub Pool switched off there) keeps the generic advice and
 * shows the reason the other Hub gave beneath it. Neither flashes "Pairing request sent", and
 * neither leaves a row. When it is this Hub that does not answer (stopped with SIGSTOP: the kernel
 * takes the call and nothing answers it), the answer says so, and that the request may have gone
 * out, rather than sending the operator to check the other Hub.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink, type WatchedPage } from './browser.js';

describe('dashboard: a pairing request the other Hub turns down, from the Hub Pool card', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 4 }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;
  let watched: WatchedPage;

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: {}, b: {} }, pairs: [] }), launchBrowser()]);
    watched = await openPage(browser);
    await signInByLink(watched.page, pool.a.process);
  });
  after(async () => {
    // Resumed first: a stopped process would not act on the stop signal.
    pool?.a.process.child.kill('SIGCONT');
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  /** Sends from the card and waits for the Not sent answer that says `cause`, this request's own. */
  const send = async (pin: string, cause: RegExp) => {
    const page = watched.page;
    await gotoPool(page);
    await page.getByLabel("Other Hub's tailnet name").fill(pool.b.name);
    await page.getByLabel('PIN from the other Hub (optional)').fill(pin);
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: /^Not sent\. / });
    await alert.getByText(cause).waitFor();
    assert.equal(await page.getByText('Pairing request sent').count(), 0);
    assert.deepEqual((await pool.a.api<{ peers: unknown[] }>('GET', `${POOL_API}/peers`)).json.peers, [], 'nothing is left waiting here');
    return alert;
  };

  it('a wrong PIN: Not sent, naming the refused PIN and a fresh one as the fix', async () => {
    const minted = await pool.b.api<{ pin: string }>('POST', `${POOL_API}/pairing-pin`);
    assert.equal(minted.status, 200);
    const wrong = String((Number(minted.json.pin) + 1) % 1_000_000).padStart(6, '0');
    const alert = await send(wrong, /The other Hub refused the PIN/);
    await alert.getByText(/Generate a fresh PIN there/).waitFor();
  });

  it('Hub Pool off on the other Hub: Not sent, the generic advice, and the reason it gave beneath', async () => {
    assert.equal((await pool.b.api('PATCH', `${POOL_API}/settings`, { poolEnabled: false })).status, 200);
    try {
      // This request's own reason: a Not sent alert alone can be the first case's, on the page for a moment after the click.
      const alert = await send('', /^The Hub said: .*declined the pairing request.*switched off/);
      await alert.getByText(/Could not reach the Hub or was declined/).waitFor();
      assert.equal(await alert.getByText(/refused the PIN/).count(), 0);
    } finally {
      assert.equal((await pool.b.api('PATCH', `${POOL_API}/settings`, { poolEnabled: true })).status, 200);
    }
  });

  it('this Hub not answering: the answer says this Hub did not answer and the request may have gone out, not that the other Hub could not be reached', async () => {
    const page = watched.page;
    await gotoPool(page);
    await page.getByLabel("Other Hub's tailnet name").fill(pool.b.name);
    await page.getByLabel('PIN from the other Hub (optional)').fill('');
    assert.ok(pool.a.process.child.kill('SIGSTOP'), 'the Hub process stopped');
    try {
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      // Given within the change's own bound (30 s), not after a status read that waits out its bound too.
      const alert = page.getByRole('alert').filter({ hasText: /^No answer\. This Hub did not answer/ });
      await alert.waitFor();
      await alert.getByText(/whether the request went out is not known/).waitFor();
      await alert.getByText(/^This Hub did not answer within 30 s/).waitFor();
      assert.equal(await alert.getByText(/Could not reach the Hub|The Hub said/).count(), 0, 'nothing said of the other Hub, or as the Hub’s own words');
      assert.equal(await page.getByText('Pairing request sent').count(), 0);
    } finally {
      pool.a.process.child.kill('SIGCONT');
    }
  });
});
