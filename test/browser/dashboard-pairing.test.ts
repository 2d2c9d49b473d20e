/**
 * Pairing entirely through the dashboard, in real Chromium against three real Hubs on
 * loopback: A pairs with B through the setup guide with a PIN minted on B's page, B's operator
 * approves from the Home review card, and both guides end on "Your pool is ready"; A pairs with
 * C from the Hub Pool page without a PIN, and C approves a request that says it has no key. A
 * request for a model only B holds then shows up in A's Recent routing and Resources.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { chat, header, post, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, screenshot, signInByLink, type WatchedPage } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

const SHARED = 'shared-model:1b';
const B_ONLY = 'only-on-b:1b';
const C_ONLY = 'only-on-c:1b';

describe('dashboard: pairing two Hubs through the UI', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 8 }, () => {
  let pool: Pool<'a' | 'b' | 'c'>;
  let browser: Browser;
  let pageA: WatchedPage;
  let pageB: WatchedPage;
  let pageC: WatchedPage;

  before(async () => {
    [pool, browser] = await startTogether([
      startPool({
        hubs: { a: { ollama: { models: [SHARED] } }, b: { ollama: { models: [SHARED, B_ONLY] } }, c: { ollama: { models: [C_ONLY] } } },
        pairs: [],
        settings: { poolHealthPollSeconds: 10 },
      }),
      launchBrowser(),
    ]);
    [pageA, pageB, pageC] = await Promise.all([openPage(browser), openPage(browser), openPage(browser)]);
    await Promise.all([signInByLink(pageA.page, pool.a.process), signInByLink(pageB.page, pool.b.process), signInByLink(pageC.page, pool.c.process)]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('with a PIN through the setup guide, approved on the other Hub from its Home card: Connected and verified on both', async () => {
    const a = pageA.page;
    const b = pageB.page;
    await gotoPool(b);
    await b.getByRole('button', { name: 'Generate PIN' }).click();
    const pin = (await b.getByTestId('pin-digits').textContent())!.trim();
    assert.match(pin, /^\d{6}$/);
    await b.getByText(/Expires in \d+:\d\d/).waitFor();

    await gotoPool(a);
    await a.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guideA = a.getByRole('dialog');
    // Check has warnings only here (the name comes from HUB_NODE_FQDN), so it offers Continue anyway.
    await guideA.getByRole('button', { name: 'Continue anyway' }).click();
    // No tailscale on these Hubs' PATH: the scan finds nobody and says which directory could not be asked.
    await guideA.getByTestId('discovery-empty').waitFor();
    assert.equal(await guideA.getByRole('button', { name: 'Choose Hubs' }).isDisabled(), true, 'nothing is chosen for you');
    await guideA.getByLabel('Add a Hub by its tailnet name').fill(pool.b.name);
    await guideA.getByRole('button', { name: 'Add', exact: true }).click();
    await guideA.getByText('Have a PIN?').click();
    await guideA.getByLabel('PIN from the other Hub').fill(pin);
    await guideA.getByRole('button', { name: 'Send 1 request' }).click();
    await guideA.getByTestId('connect-result').filter({ hasText: pool.b.name }).getByText('Request sent').waitFor();
    await guideA.getByRole('button', { name: 'Continue' }).click();
    await guideA.getByTestId('guide-waiting').filter({ hasText: pool.b.name }).waitFor();

    // B's operator: Home shows the review card; it opens the guide on Approve.
    await b.goto(`${pool.b.url}/#/`);
    await b.getByRole('heading', { name: '1 Hub wants to join your pool' }).waitFor();
    await b.getByRole('button', { name: 'Review request' }).click();
    const guideB = b.getByRole('dialog');
    const incoming = guideB.getByTestId('guide-incoming').filter({ hasText: pool.a.name });
    const fingerprintA = (await pool.a.status()).localNode.identity!.fingerprint!;
    await incoming.getByText(fingerprintA).waitFor();
    await incoming.getByRole('button', { name: 'Approve' }).click();

    await guideB.getByTestId('guide-connected').filter({ hasText: pool.a.name }).getByText('Verified').waitFor();
    await guideB.getByTestId('pool-ready').waitFor();
    // A learns of the approval by reading its status every 3 s while the guide waits.
    const cardA = guideA.getByTestId('guide-connected').filter({ hasText: pool.b.name });
    await cardA.getByText('Connected', { exact: true }).waitFor();
    await cardA.getByText('Verified').waitFor();
    await guideA.getByTestId('pool-ready').filter({ hasText: pool.b.name }).waitFor();
    await screenshot(a, 'guide-pool-ready-1440');
    await guideA.getByRole('button', { name: 'Done' }).click();
    await guideB.getByRole('button', { name: 'Done' }).click();

    for (const [page, other] of [
      [a, pool.b.name],
      [b, pool.a.name],
    ] as const) {
      await gotoPool(page);
      await page.locator(`[data-testid="paired-hub"][data-peer="${other}"]`).getByTestId('peer-status').getByText('Connected').waitFor();
      await page.getByTestId('pool-badge').getByText('Routing').waitFor();
    }
    assert.equal((await pool.a.peer(pool.b))?.status, 'connected');
    assert.equal((await pool.b.peer(pool.a))?.pinVerified, true, 'the request carried the PIN');
  });

  it("a request for a model only B holds shows B as the serving node in A's Recent routing and on its Resources card", async () => {
    const a = pageA.page;
    await gotoPool(a);
    await a.getByText(B_ONLY).first().waitFor();
    const answer = await chat(pool.a, B_ONLY);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(header(answer, 'x-hub-pool-served-by'), pool.b.name);
    const row = a.getByTestId('recent-routing').locator(`tr[data-node="${pool.b.name}"]`).filter({ hasText: B_ONLY });
    await row.waitFor();
    await a
      .getByTestId('routing-summary')
      .getByText(/^1 served/)
      .waitFor();
    await a.getByTestId('first-byte-chart').locator(`g[data-node="${pool.b.name}"]`).waitFor();
    await screenshot(a, 'recent-routing-1440');

    await a.getByRole('link', { name: 'Resources' }).click();
    const card = a.locator(`[data-testid="resource-card"][data-node="${pool.b.name}"]`);
    await card.getByText(B_ONLY).waitFor();
    await card.getByText(/median [\d.]+ m?s, p90 [\d.]+ m?s over 1 request$/).waitFor();
    assert.equal((await card.getByTestId('failed-30m').textContent())?.trim(), '0');

    // Nothing is timed yet: the card says so rather than showing a figure.
    const speed = card.getByTestId('measured-speed');
    await speed.getByText('Not measured yet').waitFor();
    // A prompt large enough to be timed (4,096 tokens or more), through A's proxy to B's engine.
    const long = await post(pool.a, '/api/chat', { model: B_ONLY, stream: false, messages: [{ role: 'user', content: 'word '.repeat(5_000) }] });
    assert.equal(long.status, 200, long.text.slice(0, 300));
    const timed = (await pool.a.status()).peers.find((p) => p.nodeFqdn === pool.b.name)?.throughput?.observed ?? [];
    assert.equal(timed[0]?.model, B_ONLY, JSON.stringify(timed));
    // Resources reads status every 15 s.
    await speed
      .getByText(
        new RegExp(`${B_ONLY.replace(/[.:]/g, '\\$&')}: [\\d,]+ tokens/s reading prompts of 4k tokens or more \\(\\d+ (s|min) ago\\), timed by this Hub`),
      )
      .waitFor();
  });

  it('without a PIN from the Hub Pool page: the other Hub sees "No key" and approves from Pending requests', async () => {
    const a = pageA.page;
    const c = pageC.page;
    await gotoPool(a);
    await a.getByLabel("Other Hub's tailnet name").fill(pool.c.name);
    await a.getByRole('button', { name: 'Pair', exact: true }).click();
    await a.getByText(`Pairing request sent to ${pool.c.name}`).waitFor();
    await a.getByTestId('pending-outbound').filter({ hasText: pool.c.name }).getByText('Waiting for the other Hub to approve').waitFor();

    await gotoPool(c);
    const request = c.getByTestId('pending-inbound').filter({ hasText: pool.a.name });
    await request.getByText('No key — this request arrived without a pairing PIN, so the name is only a claim.').waitFor();
    await request.getByRole('button', { name: 'Approve' }).click();
    await c.getByText(`Approved ${pool.a.name}`).waitFor();
    await c.locator(`[data-testid="paired-hub"][data-peer="${pool.a.name}"]`).getByTestId('peer-status').getByText('Connected').waitFor();
    // A's page reads status every 15 s; the row turns Connected without a reload.
    await a.locator(`[data-testid="paired-hub"][data-peer="${pool.c.name}"]`).getByTestId('peer-status').getByText('Connected').waitFor();
    assert.equal((await pool.c.peer(pool.a))?.pinVerified, false);
    for (const p of [pageA, pageB, pageC]) assert.deepEqual(p.errors, [], 'no console errors');
  });
});
