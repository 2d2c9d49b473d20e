/**
 * Finding the pairing lines in the Logs view, as the guide's troubleshooting asks an operator to,
 * in real Chromium against one real Hub: pairing requests from two fake peers in this process are
 * logged, and the Hub log's search picks them out by the word and by the requester's name (a
 * field of the line, not its message).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { FakePeer } from '../integration/pairing-fixtures.js';
import { launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

describe('dashboard: the pairing lines in the Logs view', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  const e = new FakePeer('hub-e');
  const f = new FakePeer('hub-f');

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: {} }, pairs: [] }), launchBrowser()]);
    for (const peer of [e, f]) assert.equal((await peer.requestPairing(pool.a.process)).status, 200);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('searching "pairing" keeps the pairing lines only, and a peer’s name keeps its own', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await page.getByRole('link', { name: 'Logs' }).click();
    const line = (text: string) => page.getByTestId('hub-log-line').filter({ hasText: text });
    await line('hub listening').first().waitFor();

    const search = page.getByLabel('Search the Hub log');
    await search.fill('pairing');
    await line('hub listening').first().waitFor({ state: 'detached' });
    for (const peer of [e, f])
      await line('pairing request received')
        .filter({ hasText: `from=${peer.name}` })
        .waitFor();
    for (const msg of await page.getByTestId('hub-log-line').locator('td:nth-child(3)').allTextContents()) assert.match(msg, /pairing/i);

    await search.fill(e.name);
    await line(`from=${f.name}`).waitFor({ state: 'detached' });
    await line('pairing request received')
      .filter({ hasText: `from=${e.name}` })
      .waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
