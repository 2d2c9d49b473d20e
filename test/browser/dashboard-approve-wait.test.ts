/**
 * How the setup guide waits for the other Hub, in real Chromium against two real Hubs on
 * loopback: a request still on its way when the guide is closed carries on; the Approve step
 * reads status every 3 s for ten minutes and then stops and offers Check again, and never scans
 * for Hubs while it waits; and the Connected Hubs card and "Your pool is ready" say what the
 * other Hub brings. The page's clock is Playwright's, so ten minutes pass in a moment.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { approve, peerNamed } from '../integration/pairing-fixtures.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

/** How long the Approve step keeps reading status (web/src/setup-guide/guide.tsx, the guide's figure). */
const WAIT_LIMIT_MS = 10 * 60_000;
/** Its read interval. */
const WAIT_POLL_MS = 3_000;
/** The hardware tiers as the user guide names them (status carries the Hub's own words for them). */
const TIER_WORDS: Record<string, string> = { 'high-end': 'High-end', 'mid-range': 'Mid-range', 'cpu-only': 'CPU only' };

describe('dashboard: the setup guide waiting for the other Hub', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 5 }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await startTogether([
      startPool({
        // B's vLLM holds one of its Ollama's models: the card counts it once.
        hubs: { a: { ollama: { models: ['m-a:1b'] } }, b: { ollama: { models: ['m-b:1b', 'm-b2:1b'] }, vllm: { models: ['m-b:1b'] } } },
        pairs: [],
        settings: { poolHealthPollSeconds: 10 },
      }),
      launchBrowser(),
    ]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('a request still on its way when the guide is closed reaches the other Hub; reopened, the guide waits on it and sends nothing again', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    await page.route(`**${POOL_API}/peers/pair`, async (route) => {
      held += 1;
      await released;
      await route.continue();
    });
    await gotoPool(page);
    await page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    await guide.getByLabel('Add a Hub by its tailnet name').fill(pool.b.name);
    await guide.getByRole('button', { name: 'Add', exact: true }).click();
    await guide.getByRole('button', { name: 'Send 1 request' }).click();
    await guide.getByTestId('connect-result').getByText('Sending…').waitFor();
    await eventually(() => held === 1, 'the request to leave the page');
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();
    await guide.waitFor({ state: 'detached' });
    assert.equal(await peerNamed(pool.b.process, pool.a.name), null, 'nothing has reached B while the request is held');

    release();
    await eventually(() => peerNamed(pool.b.process, pool.a.name), `the request on ${pool.b.name}`);
    await page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: 'Set up Hub Pool' }).click();
    await guide.getByTestId('guide-waiting').filter({ hasText: pool.b.name }).waitFor();
    assert.equal(held, 1, 'reopening sent nothing');
    await context.close();
  });

  it('waiting stops after ten minutes with Check again, without a scan; Check again sees the approval, and the card and "Your pool is ready" say what B brings', async () => {
    const { page, context } = await openPage(browser);
    await page.clock.install();
    let scans = 0;
    await page.route(`**${POOL_API}/peers/discoverable*`, (route) => {
      scans += 1;
      return route.continue();
    });
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    await eventually(() => scans === 1, 'the Hub Pool page’s own scan as it opens');
    await page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    const waiting = guide.getByTestId('guide-waiting').filter({ hasText: pool.b.name });
    await waiting.waitFor();

    await page.clock.fastForward(WAIT_LIMIT_MS);
    const stopped = guide.getByText('Stopped checking after 10 minutes.');
    await stopped.waitFor();
    assert.equal((await approve(pool.b.process, pool.a.name)).callback, 'confirmed');
    // Several read intervals pass with nothing read: the step still shows the request waiting.
    await page.clock.runFor(WAIT_POLL_MS * 3);
    assert.equal(await waiting.count(), 1, 'no read after the ten minutes');
    assert.equal(await guide.getByTestId('guide-connected').count(), 0);
    assert.equal(scans, 1, 'the guide never scanned while it waited');

    await guide.getByRole('button', { name: 'Check again' }).click();
    await stopped.waitFor({ state: 'detached' });
    const card = guide.locator(`[data-testid="guide-connected"][data-peer="${pool.b.name}"]`);
    await card.getByText('Verified').waitFor();
    const tier = (await pool.a.peer(pool.b))?.hardwareTier ?? null;
    const tierWords = tier === null ? 'Tier not reported' : (TIER_WORDS[tier] ?? tier);
    await card.getByText(`${tierWords} · engines ollama, vllm · 2 models`, { exact: true }).waitFor();
    const models = (await pool.a.status()).models.length;
    await guide.getByTestId('pool-ready').getByText(`1 connected Hub: ${pool.b.name} · ${models} models in the pool`).waitFor();
    assert.equal(scans, 1, 'and none after');
    await context.close();
  });
});
