/**
 * The Hub Pool page's Pairing PIN block and Pending requests, in real Chromium against two real
 * Hubs on loopback: a PIN shown once with its countdown (by the Hub's clock, whatever the
 * browser's says), ended on the page when its time runs out, replaced by the next one and cancelled;
 * this node's key fingerprint; a short PIN refused with a sentence instead of dropped; a request
 * that carried a PIN shown with the requester's key fingerprint; and an outbound request waiting
 * and cancelled from the page. The requester with a PIN is a fake peer in this process.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { approve, FakePeer, mintPin, peerNamed } from '../integration/pairing-fixtures.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';
import type { PoolStatus } from '../../src/status/pool-status.js';

describe('dashboard: the Pairing PIN block and Pending requests', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 5 }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;
  let page: Page;
  const block = () => page.locator('section[aria-labelledby="pairing-pin"]');
  /**
   * Mints a PIN from the page and returns the digits the Hub answered, once the block shows them.
   * The flash and the block of a PIN made before read the same until the new answer arrives, so
   * waiting on them alone could hand back the replaced PIN.
   */
  const generate = async (): Promise<string> => {
    const minted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/pairing-pin'));
    await block().getByRole('button', { name: 'Generate PIN' }).click();
    const { pin } = (await (await minted).json()) as { pin: string };
    await block().getByTestId('pin-digits').getByText(pin, { exact: true }).waitFor();
    await page.getByText('PIN generated. Type it on the other Hub within ten minutes.').waitFor();
    return pin;
  };

  before(async () => {
    [pool, browser] = await startTogether([startPool({ hubs: { a: {}, b: {} }, pairs: [] }), launchBrowser()]);
    ({ page } = await openPage(browser));
    await page.clock.install();
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it("shows the PIN's six digits once, counting down from ten minutes by the Hub's clock, and this node's key fingerprint", async () => {
    // This browser's clock an hour ahead of the Hub's: the PIN's expiresAt is already past by it.
    await page.clock.setSystemTime(Date.now() + 60 * 60_000);
    const pin = await generate();
    assert.match(pin, /^\d{6}$/);
    await block()
      .getByText(/^Expires in (9:[0-5]\d|10:00)$/)
      .waitFor();
    const fingerprint = (await pool.a.status()).localNode.identity!.fingerprint!;
    await block().getByText(`This node's key fingerprint: ${fingerprint}`).waitFor();
    assert.equal((await page.getByTestId('own-fingerprint').textContent())?.trim(), fingerprint);

    await page.reload();
    await block()
      .getByText(/^A PIN is active until .+\. Its digits were shown once, when it was made\.$/)
      .waitFor();
    assert.equal(await block().getByTestId('pin-digits').count(), 0, 'the digits are not shown again');
  });

  it('a PIN whose time runs out between two status reads reads as gone when it does, not at the next read', async () => {
    await generate();
    // The Hub's answers say four seconds are left; the next read is 15 s away.
    const statusRoute = '**/api/inference/pool/status';
    await page.route(statusRoute, async (route) => {
      const response = await route.fetch();
      const status = (await response.json()) as PoolStatus;
      const pairingPin = status.pairingPin.active ? { ...status.pairingPin, expiresInMs: 4_000 } : status.pairingPin;
      await route.fulfill({ response, json: { ...status, pairingPin } });
    });
    try {
      await page.reload();
      await block()
        .getByText(/^A PIN is active until /)
        .waitFor();
      await page.clock.fastForward(5_000);
      await block().getByText('No PIN is active.').waitFor();
      assert.equal(await block().getByRole('button', { name: 'Cancel PIN' }).count(), 0);
    } finally {
      await page.unroute(statusRoute);
    }
  });

  it('a new PIN replaces the last one, which the Hub then refuses; a request with the new one is listed with its key fingerprint to compare', async () => {
    const first = await generate();
    const second = await generate();
    const stale = await new FakePeer('hub-stale').requestPairing(pool.a.process, first);
    if (first !== second) assert.notEqual(stale.status, 200, 'the replaced PIN is refused');
    const requester = new FakePeer('hub-keyed');
    assert.equal((await requester.requestPairing(pool.a.process, second)).status, 200);
    const keyed = (await peerNamed(pool.a.process, requester.name))!;
    assert.notEqual(keyed.fingerprint, null);

    await page.reload();
    await block().getByText('No PIN is active.').waitFor();
    const row = page.getByTestId('pending-inbound').filter({ hasText: requester.name });
    await row.getByText(`Key fingerprint: ${keyed.fingerprint} — compare it with the fingerprint under Pairing PIN on ${requester.name}.`).waitFor();
    await row.getByText('Approve the tailnet name you recognise: it is the identity the approval grants.').waitFor();
    await row.getByRole('button', { name: 'Approve' }).waitFor();
    await row.getByRole('button', { name: 'Reject' }).waitFor();
  });

  it('Cancel PIN ends the PIN on the Hub and leaves the block with none', async () => {
    await generate();
    await block().getByRole('button', { name: 'Cancel PIN' }).click();
    await page.getByText('PIN cancelled.').waitFor();
    await block().getByText('No PIN is active.').waitFor();
    assert.equal((await pool.a.status()).pairingPin.active, false);
  });

  it('a PIN of fewer than six digits is refused with a sentence, never sent without it', async () => {
    await page.getByLabel("Other Hub's tailnet name").fill(pool.b.name);
    const pinField = page.getByLabel('PIN from the other Hub (optional)');
    await pinField.fill('12345');
    await block().getByText('A PIN is exactly six digits. Leave the field empty to pair without one.').waitFor();
    assert.equal(await pinField.getAttribute('aria-invalid'), 'true');
    assert.equal(await block().getByRole('button', { name: 'Pair', exact: true }).isDisabled(), true);
    assert.equal(await peerNamed(pool.b.process, pool.a.name), null, 'nothing was sent');
    await pinField.fill('');
  });

  it('an outbound request waits under Pending requests and Cancel request withdraws it on both Hubs', async () => {
    // With B's PIN, so this Hub holds B's key and can tell it (a request without one cannot be withdrawn there).
    await page.getByLabel("Other Hub's tailnet name").fill(pool.b.name);
    await page.getByLabel('PIN from the other Hub (optional)').fill((await mintPin(pool.b.process)).pin);
    await block().getByRole('button', { name: 'Pair', exact: true }).click();
    const waiting = page.getByTestId('pending-outbound').filter({ hasText: pool.b.name });
    await waiting.getByText('Waiting for the other Hub to approve').waitFor();
    await waiting.getByRole('button', { name: 'Cancel request' }).click();
    await page.getByText(`Request to ${pool.b.name} cancelled.`).waitFor();
    await waiting.waitFor({ state: 'detached' });
    await eventually(async () => (await peerNamed(pool.b.process, pool.a.name)) === null, `${pool.b.name} to drop the request`);
  });

  it('"PIN generated" goes once a request spends the PIN, when the block says no PIN is active', async () => {
    const pin = await generate();
    assert.equal((await new FakePeer('hub-spender').requestPairing(pool.a.process, pin)).status, 200, 'the request spends the PIN');
    // The page's next status read.
    await page.clock.fastForward(16_000);
    await block().getByText('No PIN is active.').waitFor();
    await block().getByText('PIN generated. Type it on the other Hub within ten minutes.').waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('"Pairing request sent … listed under Pending requests" goes once that request no longer waits: here, approved on the other Hub', async () => {
    await page.getByLabel("Other Hub's tailnet name").fill(pool.b.name);
    await page.getByLabel('PIN from the other Hub (optional)').fill((await mintPin(pool.b.process)).pin);
    await block().getByRole('button', { name: 'Pair', exact: true }).click();
    const sent = block().getByText(`Pairing request sent to ${pool.b.name}. It is listed under Pending requests until that Hub approves it.`, { exact: true });
    await sent.waitFor();
    const waiting = page.getByTestId('pending-outbound').filter({ hasText: pool.b.name });
    await waiting.waitFor();
    assert.equal((await approve(pool.b.process, pool.a.name)).callback, 'confirmed');
    await eventually(async () => (await peerNamed(pool.a.process, pool.b.name))?.status === 'connected', `${pool.b.name} paired on ${pool.a.name}`);
    // The page's next status read.
    await page.clock.fastForward(16_000);
    await waiting.waitFor({ state: 'detached' });
    await sent.waitFor({ state: 'detached', timeout: 10_000 });
  });
});
