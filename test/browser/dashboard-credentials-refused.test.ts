/**
 * A paired Hub that answers but refuses this Hub's credentials for a reason other than a changed
 * identity, as the Hub Pool page shows it: its row says credentials refused, with the sentence
 * that names the next command beneath, because waiting alone does not mend it. The refusal here
 * is real: hub-b's wall clock is moved past the signing window (test/helpers/skewed-clock.ts),
 * so it refuses hub-a's signed health checks with a bare 401. The setup guide's Connected Hubs
 * card says the same, reached from Home's review card for a request from a fake peer in this
 * process (how an operator with a paired Hub meets the Approve step), and there Unpair ends it.
 * Real Chromium, real Hubs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { eventually, freshDataDir, REPO_ROOT } from '../helpers/hub-process.js';
import { LONG_TEST_TIMEOUT_MS, START_TIMEOUT_MS, startPool, type Pool } from '../helpers/pool-fixture.js';
import { scaled } from '../helpers/time-scale.js';
import { FakePeer } from '../integration/pairing-fixtures.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

/** Ten minutes: twice the five minutes of skew a signed request is allowed. */
const SKEW_MS = 10 * 60_000;
/** One health check at the pool's 10 s cadence, plus slack, then the page's next status read (every 15 s). */
const REFUSAL_SEEN_MS = scaled(10_000 + 5_000 + 15_000);

describe('dashboard: a peer that refuses this Hub', { timeout: START_TIMEOUT_MS + LONG_TEST_TIMEOUT_MS }, () => {
  const skewFile = join(freshDataDir(), 'skew-ms');
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;

  before(async () => {
    writeFileSync(skewFile, '0');
    const skewed = { NODE_OPTIONS: `--import=${join(REPO_ROOT, 'dist/test/helpers/skewed-clock.js')}`, CIHUB_TEST_CLOCK_SKEW_FILE: skewFile };
    [pool, browser] = await Promise.all([
      startPool({ hubs: { a: {}, b: { env: skewed } }, pairs: [['a', 'b']], settings: { poolHealthPollSeconds: 10 } }),
      launchBrowser(),
    ]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('shows Credentials refused with the next command beneath, not Unreachable with "no action needed"', async () => {
    writeFileSync(skewFile, String(SKEW_MS));
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    const row = page.locator(`[data-testid="paired-hub"][data-peer="${pool.b.name}"]`);
    await row.getByTestId('peer-status').getByText('Credentials refused').waitFor({ timeout: REFUSAL_SEEN_MS });
    await row.getByText(`It answers but refuses this Hub. Next: run cihub pool status on ${pool.b.name}`).waitFor();
    await row.getByText('compare the two clocks (5 minutes of skew allowed)', { exact: false }).waitFor();
    await row.getByRole('button', { name: 'Unpair' }).waitFor();
    assert.equal(await row.getByText('No action needed').count(), 0, 'waiting alone does not mend a refusal');
    await context.close();
  });

  it("the setup guide's Connected Hubs card says Credentials refused with the next command, and its Unpair ends the pairing", async () => {
    writeFileSync(skewFile, String(SKEW_MS));
    await pool.a.waitForPeer(pool.b, 'refusing this Hub', (p) => p.probeFailure?.kind === 'unauthorized', 60_000);
    const requester = new FakePeer('hub-e');
    assert.equal((await requester.requestPairing(pool.a.process)).status, 200);

    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await page.getByRole('button', { name: 'Review request' }).click();
    const card = page.getByRole('dialog').locator(`[data-testid="guide-connected"][data-peer="${pool.b.name}"]`);
    await card.getByText('Credentials refused', { exact: true }).waitFor();
    await card.getByTestId('guide-problem').getByText(`It answers but refuses this Hub. Next: run cihub pool status on ${pool.b.name}`).waitFor();
    assert.equal(await card.getByText('Verified').count(), 1, 'verified once, refused now');
    await card.getByRole('button', { name: 'Unpair' }).click();
    await card.waitFor({ state: 'detached' });
    await eventually(async () => (await pool.a.peer(pool.b)) === null, `${pool.b.name} to be unpaired here`);
    await context.close();
  });
});
