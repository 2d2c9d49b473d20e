/**
 * A request to join that arrives while the Hub Pool page or Home is open, in real Chromium
 * against a real Hub on loopback: each page tells a screen reader, in a polite live region,
 * which Hub asks, once the status read that brings it lands. A request already waiting when the
 * page first read status is on the page, not news, and is not said. The requests come from fake
 * peers in this process (a request without a PIN is all a name's claim needs); the page's clock
 * is moved on to its next read rather than waited for.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { FakePeer } from '../integration/pairing-fixtures.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

/** The pages' status cadences (web/src/hub-pool/polling.ts, web/src/Home.tsx). */
const POOL_PAGE_POLL_MS = 15_000;
const HOME_POLL_MS = 30_000;

describe('dashboard: a request to join said as it arrives', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  const peers = { e: new FakePeer('hub-e'), f: new FakePeer('hub-f'), g: new FakePeer('hub-g') };

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: {} }, pairs: [] }), launchBrowser()]);
    await Promise.all(Object.values(peers).map((p) => p.start()));
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop(), ...Object.values(peers).map((p) => p.close())]);
  });

  const ask = async (peer: FakePeer) => assert.equal((await peer.requestPairing(pool.a.process)).status, 200);
  /** The region's words, once the page has drawn what it read. */
  const saidIn = async (region: Locator): Promise<string> => {
    assert.equal(await region.getAttribute('role'), 'status');
    return (await region.textContent()) ?? '';
  };
  const signedIn = async (): Promise<Page> => {
    const { page } = await openPage(browser);
    await page.clock.install();
    await signInByLink(page, pool.a.process);
    return page;
  };

  it('Pending requests says the Hub whose request arrived, and not the one already waiting when the page opened', async () => {
    await ask(peers.e);
    const page = await signedIn();
    await gotoPool(page);
    await page.getByTestId('pending-inbound').filter({ hasText: peers.e.name }).waitFor();
    const region = page.getByTestId('pending-arrivals-said');
    assert.equal(await saidIn(region), '', 'what waited before the page opened is not news');

    await ask(peers.f);
    await page.clock.fastForward(POOL_PAGE_POLL_MS);
    await page.getByTestId('pending-inbound').filter({ hasText: peers.f.name }).waitFor();
    await region.filter({ hasText: `${peers.f.name} asks to join your pool.` }).waitFor();
    assert.doesNotMatch(await saidIn(region), /hub-e/);
    await page.context().close();
  });

  it('Home says it beside the review card, whose count moves on', async () => {
    const page = await signedIn();
    const review = page.locator('section[aria-labelledby="review-title"]');
    await review.getByRole('heading', { name: '2 Hubs want to join your pool' }).waitFor();
    const region = page.getByTestId('home-arrivals-said');
    assert.equal(await saidIn(region), '');

    await ask(peers.g);
    await page.clock.fastForward(HOME_POLL_MS);
    await review.getByRole('heading', { name: '3 Hubs want to join your pool' }).waitFor();
    await region.filter({ hasText: `${peers.g.name} asks to join your pool.` }).waitFor();
    assert.doesNotMatch(await saidIn(region), /hub-e|hub-f/);
    await page.context().close();
  });
});
