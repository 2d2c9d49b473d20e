/**
 * The setup guide's Connected Hubs card for a paired Hub that refuses this Hub's credentials: the
 * problem in words with the next command, and Unpair, since waiting does not mend it. Real
 * Chromium, real Hubs; the refusal is real, as in dashboard-credentials-refused.test.ts (hub-b's
 * wall clock is moved past the signing window). The guide is opened from Home's review card for a
 * request from a fake peer in this process, which is how an operator with a paired Hub reaches
 * the Approve step.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { eventually, freshDataDir, REPO_ROOT } from '../helpers/hub-process.js';
import { LONG_TEST_TIMEOUT_MS, START_TIMEOUT_MS, startPool, type Pool } from '../helpers/pool-fixture.js';
import { FakePeer } from '../integration/pairing-fixtures.js';
import { launchBrowser, openPage, signInByLink } from './browser.js';

/** Ten minutes: twice the five minutes of skew a signed request is allowed. */
const SKEW_MS = 10 * 60_000;

describe('dashboard: the setup guide and a peer that refuses this Hub', { timeout: START_TIMEOUT_MS + LONG_TEST_TIMEOUT_MS }, () => {
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

  it('the Connected Hubs card says Credentials refused with the next command, and offers Unpair', async () => {
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
