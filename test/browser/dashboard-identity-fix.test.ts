/**
 * This node's card on the Hub Pool page, in real Chromium against a real Hub that has never made
 * its identity because its disk fails to read identity.secret: the card shows why, with the fix
 * for that cause (the disk, not the secret), the same sentence `cihub pool status` and doctor give.
 * The disk's refusal is a read the kernel answers with EIO, made without root: identity.secret is
 * a link to /proc/self/mem, whose first page the Hub has not mapped.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { freshDataDir, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { POOL_API, START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { startTogether } from '../helpers/start-together.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

describe('dashboard: an identity the disk keeps this Hub from making', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS }, () => {
  let browser: Browser;
  let hub: HubProcess;

  before(async () => {
    const dataDir = freshDataDir();
    symlinkSync('/proc/self/mem', join(dataDir, 'identity.secret'));
    [hub, browser] = await startTogether([startHubProcess({ dataDir }), launchBrowser()]);
    // A PIN asks for the identity: the Hub tries to make it, and the disk refuses.
    assert.equal((await hub.api('POST', `${POOL_API}/pairing-pin`)).status, 503);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop()]);
  });

  it("This node shows why no key could be made and the disk's fix, not the secret's", async () => {
    const identity = (await hub.api<PoolStatus>('GET', `${POOL_API}/status`)).json.localNode.identity;
    assert.equal(identity?.identityCause, 'disk-refused');
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, hub);
    await gotoPool(page);
    assert.equal((await page.getByTestId('own-fingerprint').textContent())?.trim(), 'None: it could not be made');
    const shown = (await page.getByTestId('identity-error').innerText()).trim();
    assert.ok(shown.startsWith(identity!.identityError!), shown);
    assert.ok(shown.endsWith(`Fix: ${identity!.identityFix}.`), shown);
    assert.match(shown, /Fix: free space on the disk holding the data dir/);
    assert.doesNotMatch(shown, /write a secret|remove that file/);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
