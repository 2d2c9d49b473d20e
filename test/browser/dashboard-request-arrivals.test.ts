/**
 * A request to join that arrives while the Hub Pool page or Home is open, in real Chromium
 * against a real Hub on loopback: each page tells a screen reader, in a polite live region,
 * which Hub asks, once the status read that brings it lands. A request already waiting when the
 * page first read status is on the page, not news, and is not said. The requests come from fake
 * peers in this process (a request without a PIN is all a name's claim needs); the page's clock
 * is moved on to its next read rather than waited for. A Hub that asks again is said again, though
 * the words are the same. While the setup guide is open the page behind it is inert and, on
 * macOS, out of the accessibility tree altogether (the guide is an aria-modal dialog), so a request
 * that arrives then is said by a region inside the guide, and only once: not again by the page's
 * region when the guide closes, which does say one the guide never read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { FakePeer } from '../integration/pairing-fixtures.js';
import { eventually } from '../helpers/hub-process.js';
import { exposedToScreenReaders, gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

/** The pages' status cadences (web/src/hub-pool/polling.ts, web/src/Home.tsx). */
const POOL_PAGE_POLL_MS = 15_000;
const HOME_POLL_MS = 30_000;

describe('dashboard: a request to join said as it arrives', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 4 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;
  const peers = {
    e: new FakePeer('hub-e'),
    f: new FakePeer('hub-f'),
    g: new FakePeer('hub-g'),
    h: new FakePeer('hub-h'),
    i: new FakePeer('hub-i'),
    j: new FakePeer('hub-j'),
    k: new FakePeer('hub-k'),
  };

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

  it('a Hub that asks again after its request was rejected is said again, in the same words', async () => {
    const page = await signedIn();
    const review = page.locator('section[aria-labelledby="review-title"]');
    await review.getByRole('heading', { name: '3 Hubs want to join your pool' }).waitFor();
    const sentence = `${peers.h.name} asks to join your pool.`;
    // A screen reader says a live region's words when the page changes them; the same words
    // written over themselves change nothing, so nothing is said. Every change to the region is
    // recorded, with the words it left there.
    await page.evaluate(`(() => {
      const region = document.querySelector('[data-testid="home-arrivals-said"]');
      window.regionChanges = [];
      new MutationObserver(() => window.regionChanges.push(region.textContent)).observe(region, { childList: true, subtree: true, characterData: true });
    })()`);
    const timesSaid = async () => ((await page.evaluate('window.regionChanges')) as string[]).filter((words) => words === sentence).length;

    await ask(peers.h);
    await page.clock.fastForward(HOME_POLL_MS);
    await review.getByRole('heading', { name: '4 Hubs want to join your pool' }).waitFor();
    await eventually(async () => (await timesSaid()) === 1, `${sentence} said once`);

    const row = (await pool.a.api<{ peers: { id: string; nodeFqdn: string }[] }>('GET', `${POOL_API}/peers`)).json.peers.find(
      (p) => p.nodeFqdn === peers.h.name,
    );
    assert.ok(row, `${peers.h.name}'s request is listed`);
    assert.equal((await pool.a.api('POST', `${POOL_API}/peers/${row.id}/reject`)).status, 200);
    await page.clock.fastForward(HOME_POLL_MS);
    await review.getByRole('heading', { name: '3 Hubs want to join your pool' }).waitFor();

    await ask(peers.h);
    await page.clock.fastForward(HOME_POLL_MS);
    await review.getByRole('heading', { name: '4 Hubs want to join your pool' }).waitFor();
    await eventually(async () => (await timesSaid()) === 2, `${sentence} said again`);
    await page.context().close();
  });

  /**
   * Records each sentence added to any live region on the page, inert or not: a screen reader
   * says a live region's words when they are added, so a request said twice shows twice here.
   */
  const recordSaid = async (page: Page) => {
    await page.evaluate(`(() => {
      window.saidWords = [];
      new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes)
          if (n.nodeType === Node.ELEMENT_NODE && n.closest('[role="status"]') !== null && n.textContent !== '') window.saidWords.push(n.textContent);
      }).observe(document.body, { childList: true, subtree: true });
    })()`);
    return async (sentence: string) => ((await page.evaluate('window.saidWords')) as string[]).filter((words) => words === sentence).length;
  };

  it('a request that arrives while the setup guide is open is said inside the guide, where macOS still gives it to a screen reader, and not again once it closes', async () => {
    const page = await signedIn();
    const review = page.locator('section[aria-labelledby="review-title"]');
    await review.getByRole('button', { name: 'Review requests' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByTestId('guide-incoming').first().waitFor();
    assert.equal(await page.locator('main').getAttribute('inert'), '', 'the page behind the guide is inert');
    const timesSaid = await recordSaid(page);
    const sentence = `${peers.i.name} asks to join your pool.`;

    await ask(peers.i);
    await page.clock.fastForward(HOME_POLL_MS);
    // An aria-modal dialog leaves nothing outside it in the accessibility tree on macOS (Chromium and Safari), so the region must be in the dialog.
    const region = guide.getByTestId('guide-arrivals-said');
    await region.filter({ hasText: sentence }).waitFor();
    assert.equal(await saidIn(region), sentence);
    assert.equal(await guide.isVisible(), true, 'the guide is still open');
    assert.equal(
      await exposedToScreenReaders(page, '[role="dialog"] [data-testid="guide-arrivals-said"]'),
      true,
      'a screen reader is given the region while the guide is open',
    );

    await guide.getByRole('button', { name: 'Close the setup guide' }).click();
    await guide.waitFor({ state: 'detached' });
    // A later arrival said on Home shows its region is live again, and has read status since the guide closed.
    await ask(peers.j);
    await page.clock.fastForward(HOME_POLL_MS);
    await page
      .getByTestId('home-arrivals-said')
      .filter({ hasText: `${peers.j.name} asks to join your pool.` })
      .waitFor();
    assert.equal(await timesSaid(sentence), 1, `${sentence} said once, by the guide, over the guide's opening and closing`);
    await page.context().close();
  });

  it('a request that arrives while the guide is open on a step that does not read status is said on Home once the guide closes', async () => {
    const page = await signedIn();
    const review = page.locator('section[aria-labelledby="review-title"]');
    await review.getByRole('button', { name: 'Review requests' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: 'Add another Hub' }).click();
    await guide.getByRole('heading', { name: 'Find' }).waitFor();
    const timesSaid = await recordSaid(page);
    const sentence = `${peers.k.name} asks to join your pool.`;

    // Home reads it behind the guide (its review card counts one more); the guide, on Find, does not read status at all.
    const title = page.locator('#review-title');
    const waiting = Number((await title.textContent())?.split(' ')[0]);
    await ask(peers.k);
    await page.clock.fastForward(HOME_POLL_MS);
    await title.filter({ hasText: `${waiting + 1} Hubs want to join your pool` }).waitFor();
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();
    await page.getByTestId('home-arrivals-said').filter({ hasText: sentence }).waitFor();
    assert.equal(await timesSaid(sentence), 1);
    await page.context().close();
  });
});
