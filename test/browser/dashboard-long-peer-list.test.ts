/**
 * On a Hub Pool page with a long list of paired Hubs, in real Chromium against a real Hub on
 * loopback and peers of this build (fakes in this process): each row's Disable and Unpair are
 * named with that row's peer, and what Disable, Enable, Unpair, Add pin, a pin's Remove,
 * Discoverable devices' Pair, the Pairing PIN card's buttons and Pending requests' Approve and
 * Reject came to is said beside the control
 * that was used, in view, rather than at the top of the page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { FakePeer, fqdn, pairFakeWithPin, peerNamed, POOL, reservePorts, startNamedHub, status, type HubProcess } from '../integration/pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';
import { answerDiscovery, gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

const HUB = fqdn('hub-a');
/** Enough rows that the lower ones sit well below the top of the page on a desktop screen. */
const PEER_COUNT = 8;
const REFUSAL = 'REFUSED FOR THIS TEST';
/** The answer the page gets for a change this test has the Hub refuse. */
const REFUSED = { status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'HUB_ERR_TEST', message: REFUSAL } }) };

/** Layout in fractions of a pixel: an element scrolled flush with the window's edge may overhang it by less than this. */
const SUBPIXEL_PX = 1;

/** Whether the whole element is inside the window as scrolled now. */
async function inView(l: Locator): Promise<boolean> {
  const box = await l.boundingBox();
  const screen = l.page().viewportSize();
  assert.ok(box !== null && screen !== null);
  return box.y >= -SUBPIXEL_PX && box.y + box.height <= screen.height + SUBPIXEL_PX;
}

describe('dashboard: a long Paired Hubs list', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 11 }, () => {
  const fakes = Array.from({ length: PEER_COUNT }, (_, i) => new FakePeer(`peer-${String(i + 1).padStart(2, '0')}`));
  /** Reachable but not paired, and refuses a pairing request (a fake answers it 404): a real Not sent. */
  const stranger = new FakePeer('stranger');
  /** Ask to join during the test, and answer the Hub's calls: an approval reaches them. */
  const joiners = [new FakePeer('joins-01'), new FakePeer('joins-02')];
  let hub: HubProcess;
  let browser: Browser;
  let page: Page;
  /** The page's own card, where outcomes were said before they were said beside their controls. */
  const top = () => page.locator('section[aria-labelledby="pool-title"]');
  const row = (f: FakePeer) => page.locator(`[data-testid="paired-hub"][data-peer="${f.name}"]`);

  before(async () => {
    await Promise.all([...fakes, stranger, ...joiners].map((f) => f.start()));
    const ports = await reservePorts(['a']);
    [hub, browser] = await startTogether([
      startNamedHub({ name: HUB, port: ports.a, origins: Object.fromEntries([...fakes, stranger, ...joiners].map((f) => [f.name, f.origin])) }),
      launchBrowser(),
    ]);
    for (const f of fakes) await pairFakeWithPin(hub, f);
    ({ page } = await openPage(browser));
    await signInByLink(page, hub);
    await gotoPool(page);
    await row(fakes.at(-1)!).waitFor();
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop(), ...[...fakes, stranger, ...joiners].map((f) => f.close())]);
  });

  it("every row's Disable and Unpair are named with its peer, and each pin's Remove with its model, so a screen reader can tell them apart; the visible words stay short", async () => {
    for (const f of fakes) {
      const disable = page.getByRole('button', { name: `Disable ${f.name}`, exact: true });
      const unpair = page.getByRole('button', { name: `Unpair ${f.name}`, exact: true });
      assert.deepEqual([await disable.count(), await unpair.count()], [1, 1], f.name);
      assert.deepEqual([await disable.textContent(), await unpair.textContent()], ['Disable', 'Unpair']);
    }
    assert.equal(await page.getByRole('button', { name: 'Disable', exact: true }).count(), 0, 'no button is named only "Disable"');

    for (const pin of [
      { scope: 'default', target: 'local' },
      { scope: 'model', model: 'pinned:1b', target: fakes[0]!.name },
    ])
      assert.equal((await hub.api('POST', `${POOL}/pins`, pin)).status, 200);
    await page.reload();
    for (const name of ['Remove the pin for every model', 'Remove the pin for pinned:1b']) {
      const remove = page.getByRole('button', { name, exact: true });
      await remove.waitFor();
      assert.equal(await remove.count(), 1, name);
      assert.equal(await remove.textContent(), 'Remove');
    }
  });

  it("each waiting request's Approve and Reject under Pending requests are named with the Hub that asked", async () => {
    const asking = [new FakePeer('asks-01'), new FakePeer('asks-02')];
    for (const f of asking) assert.equal((await f.requestPairing(hub)).status, 200);
    await page.reload();
    for (const f of asking)
      for (const verb of ['Approve', 'Reject']) {
        const button = page.getByRole('button', { name: `${verb} ${f.name}`, exact: true });
        await button.waitFor();
        assert.equal(await button.textContent(), verb);
      }
    assert.equal(await page.getByRole('button', { name: 'Approve', exact: true }).count(), 0, 'no button is named only "Approve"');
    for (const f of asking) await page.getByRole('button', { name: `Reject ${f.name}`, exact: true }).click();
    await page.getByTestId('pending-inbound').first().waitFor({ state: 'detached' });
  });

  it('Disable and then Enable on the last row say what happened in that row, in view, and nowhere else', async () => {
    const last = fakes.at(-1)!;
    await row(last).getByRole('button', { name: 'Disable' }).click();
    const done = `${last.name} disabled: no work either way until enabled.`;
    const said = row(last).getByRole('status').filter({ hasText: done });
    await said.waitFor();
    assert.equal(await inView(said), true, 'the message is where the person clicked');
    assert.equal(await page.getByText(done).count(), 1, 'said once, not also at the top of the page');
    assert.equal((await peerNamed(hub, last.name))?.enabled, false);

    await row(last).getByRole('button', { name: 'Enable' }).click();
    await row(last)
      .getByRole('status')
      .filter({ hasText: `${last.name} enabled.` })
      .waitFor();
    assert.equal(await page.getByText(done).count(), 0, 'the older outcome gave way to the newer');
  });

  it('a refused Disable is said as an alert in the row, and the button is described by it', async () => {
    const f = fakes.at(-2)!;
    const disablePath = `**${POOL}/peers/*/disable`;
    await page.route(disablePath, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'HUB_ERR_TEST', message: REFUSAL } }) }),
    );
    try {
      const button = row(f).getByRole('button', { name: 'Disable' });
      await button.click();
      const alert = row(f).getByRole('alert');
      await alert.getByText(`Not disabled: ${REFUSAL}`).waitFor();
      assert.equal(await inView(alert), true);
      assert.equal(await button.getAttribute('aria-describedby'), await alert.getAttribute('id'));
      assert.equal((await peerNamed(hub, f.name))?.enabled, true);
    } finally {
      await page.unroute(disablePath);
    }
  });

  it('Unpair says what happened where the row stood, once the row is gone, and focus moves there', async () => {
    const [before, gone, next] = [fakes.at(-4)!, fakes.at(-3)!, fakes.at(-2)!];
    page.once('dialog', (d) => void d.accept());
    await row(gone).getByRole('button', { name: 'Unpair' }).click();
    await row(gone).waitFor({ state: 'detached' });
    const said = page.getByTestId('paired-said');
    await said.getByText(`Unpaired ${gone.name}.`).waitFor();
    assert.equal(await said.getAttribute('role'), 'status');
    assert.equal(await inView(said), true);
    const around = await said.evaluate((el) => {
      const item = el.closest('li');
      const peer = (li: { getAttribute(name: string): string | null } | null | undefined) => li?.getAttribute('data-peer') ?? null;
      return [peer(item?.previousElementSibling), peer(item?.nextElementSibling)];
    });
    assert.deepEqual(around, [before.name, next.name], 'between the rows that were either side of it');
    assert.equal(await said.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus, lost with the button, is on the message');
    assert.equal(await peerNamed(hub, gone.name), null);
  });

  it('a refused Add pin is said under the pin fields as an alert, marks the model invalid until it is edited, and a saved pin is said there too', async () => {
    const model = page.getByLabel('Model (empty: every model)');
    await model.fill('m'.repeat(300));
    const add = page.getByRole('button', { name: 'Add pin' });
    await add.click();
    const said = page.getByTestId('pin-said');
    await said.getByText(/^Pin not added: model must be at most \d+ characters/).waitFor();
    assert.equal(await said.getAttribute('role'), 'alert');
    assert.equal(await inView(said), true);
    assert.equal(await model.getAttribute('aria-invalid'), 'true');
    assert.equal(await add.getAttribute('aria-describedby'), 'pin-said');

    await model.fill('m:1b');
    await said.waitFor({ state: 'detached' });
    assert.equal(await model.getAttribute('aria-invalid'), 'false');
    await add.click();
    await said.getByText('Pin saved.').waitFor();
    assert.equal(await said.getAttribute('role'), 'status');
    assert.deepEqual(
      (await status(hub)).pins.filter((p) => p.model === 'm:1b').map((p) => p.targetNode),
      ['local'],
    );
  });

  it("a refused Remove is said as an alert in its pin's row; Remove says what happened where the pin stood, and focus moves there", async () => {
    const removePath = `**${POOL}/pins?*`;
    const remove = page.getByRole('button', { name: 'Remove the pin for pinned:1b', exact: true });
    const pinRow = page.locator('section[aria-labelledby="pins"] li').filter({ has: remove });
    await page.route(removePath, (route) => (route.request().method() === 'DELETE' ? route.fulfill(REFUSED) : route.fallback()));
    try {
      await remove.click();
      const alert = pinRow.getByRole('alert');
      await alert.getByText(`Pin not removed: ${REFUSAL}`).waitFor();
      assert.equal(await inView(alert), true);
      assert.equal(await remove.getAttribute('aria-describedby'), await alert.getAttribute('id'));
      assert.equal(await page.getByText(REFUSAL).count(), 1, 'said once, not also at the top of the page');
    } finally {
      await page.unroute(removePath);
    }

    const [before, next] = await Promise.all(
      ['Remove the pin for every model', 'Remove the pin for m:1b'].map((name) => page.getByRole('button', { name, exact: true }).getAttribute('aria-label')),
    );
    await remove.focus();
    await page.keyboard.press('Enter');
    await remove.waitFor({ state: 'detached' });
    const said = page.getByTestId('pin-removed-said').filter({ hasText: 'Pin removed.' });
    await said.waitFor();
    assert.equal(await said.getAttribute('role'), 'status');
    assert.equal(await inView(said), true);
    assert.equal(await page.getByText('Pin removed.').count(), 1, 'said once, not also at the top of the page');
    const around = await said.evaluate((el) => {
      const item = el.closest('li');
      const named = (li: { querySelector(css: string): { getAttribute(name: string): string | null } | null } | null | undefined) =>
        li?.querySelector('button')?.getAttribute('aria-label') ?? null;
      return [named(item?.previousElementSibling), named(item?.nextElementSibling)];
    });
    assert.deepEqual(around, [before, next], 'between the pins that were either side of it');
    assert.equal(await said.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus, lost with the button, is on the message');
    assert.deepEqual(
      (await status(hub)).pins.filter((p) => p.model === 'pinned:1b'),
      [],
    );
  });

  it("Pair under Discoverable devices says a request that was not sent in that device's row", async () => {
    await answerDiscovery(page, [{ nodeFqdn: stranger.name, displayName: 'stranger', deviceId: null, os: 'linux', online: true, poolProtocol: 1 }]);
    const found = page.locator('section[aria-labelledby="discoverable"]');
    await found.getByRole('button', { name: 'Rescan' }).click();
    const pair = found.getByRole('button', { name: `Pair with ${stranger.name}`, exact: true });
    await pair.click();
    const alert = found
      .locator('li')
      .filter({ has: page.getByRole('button', { name: `Pair with ${stranger.name}`, exact: true }) })
      .getByRole('alert');
    await alert.getByText(/^Not sent\. /).waitFor();
    assert.equal(await inView(alert), true);
    assert.equal(await pair.getAttribute('aria-describedby'), await alert.getAttribute('id'));
    assert.equal(
      await top()
        .getByText(/^Not sent\. /)
        .count(),
      0,
      'not also at the top of the page',
    );
    await page.unroute(`**${POOL}/peers/discoverable*`);
  });

  it('the Pairing PIN card says what Generate PIN, Cancel PIN and Pair came to under their buttons; Cancel, whose button goes, hands focus to its message', async () => {
    const card = page.locator('section[aria-labelledby="pairing-pin"]');
    await card.getByRole('button', { name: 'Generate PIN' }).click();
    const generated = 'PIN generated. Type it on the other Hub within ten minutes.';
    await card.getByRole('status').filter({ hasText: generated }).waitFor();
    assert.equal(await card.getByRole('button', { name: 'Generate PIN' }).getAttribute('aria-describedby'), 'pin-generate-said');
    assert.equal(await page.getByText(generated).count(), 1, 'said once, not also at the top of the page');

    const cancel = card.getByRole('button', { name: 'Cancel PIN' });
    await cancel.focus();
    await page.keyboard.press('Enter');
    await cancel.waitFor({ state: 'detached' });
    const cancelled = card.getByRole('status').filter({ hasText: 'PIN cancelled.' });
    await cancelled.waitFor();
    assert.equal(await page.getByText(generated).count(), 0, 'the older outcome gave way to the newer');
    assert.equal(await cancelled.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus, lost with the button, is on the message');
    assert.equal((await status(hub)).pairingPin.active, false);

    await card.getByLabel("Other Hub's tailnet name").fill(stranger.name);
    const pair = card.getByRole('button', { name: 'Pair', exact: true });
    await pair.click();
    const alert = card.getByRole('alert');
    await alert.getByText(/^Not sent\. /).waitFor();
    assert.equal(await inView(alert), true);
    assert.equal(await pair.getAttribute('aria-describedby'), await alert.getAttribute('id'));
    assert.equal(
      await top()
        .getByText(/^Not sent\. /)
        .count(),
      0,
      'not also at the top of the page',
    );
  });

  it('Pending requests: a refused Approve is said in its row as an alert; Reject and Approve, which take the row away, say what happened where it stood and take focus there', async () => {
    for (const f of joiners) assert.equal((await f.requestPairing(hub)).status, 200);
    const pending = page.locator('section[aria-labelledby="pending"]');
    const [first, second] = joiners as [FakePeer, FakePeer];
    const approve = (f: FakePeer) => pending.getByRole('button', { name: `Approve ${f.name}`, exact: true });
    await approve(second).waitFor();

    const approvePath = `**${POOL}/peers/*/approve`;
    await page.route(approvePath, (route) => route.fulfill(REFUSED));
    try {
      await approve(first).click();
      const alert = pending.getByTestId('pending-inbound').filter({ hasText: first.name }).getByRole('alert');
      await alert.getByText(`Not approved: ${REFUSAL}`).waitFor();
      assert.equal(await inView(alert), true);
      assert.equal(await approve(first).getAttribute('aria-describedby'), await alert.getAttribute('id'));
      assert.equal(await top().getByText(REFUSAL).count(), 0, 'not also at the top of the page');
    } finally {
      await page.unroute(approvePath);
    }

    const reject = pending.getByRole('button', { name: `Reject ${first.name}`, exact: true });
    await reject.focus();
    await page.keyboard.press('Enter');
    await reject.waitFor({ state: 'detached' });
    const said = pending.getByTestId('pending-said').filter({ hasText: `Rejected ${first.name}.` });
    await said.waitFor();
    assert.equal(await said.getAttribute('role'), 'status');
    assert.equal(await inView(said), true);
    assert.equal(await said.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus, lost with the button, is on the message');
    assert.equal(await top().getByText(`Rejected ${first.name}.`).count(), 0, 'not also at the top of the page');

    await approve(second).click();
    await approve(second).waitFor({ state: 'detached' });
    await pending.getByTestId('pending-said').getByText(`Approved ${second.name}. Both Hubs list each other as paired.`).waitFor();
    await row(second).waitFor();
  });

  it('while a pairing request waits for its answer, its Pair says Sending… and cannot send it again, in the PIN card and under Discoverable devices', async () => {
    let asked = 0;
    let release = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    const pairPath = `**${POOL}/peers/pair`;
    await page.route(pairPath, async (route) => {
      asked += 1;
      await answered;
      await route.fallback();
    });
    await answerDiscovery(page, [{ nodeFqdn: stranger.name, displayName: 'stranger', deviceId: null, os: 'linux', online: true, poolProtocol: 1 }]);
    try {
      const card = page.locator('section[aria-labelledby="pairing-pin"]');
      await card.getByLabel("Other Hub's tailnet name").fill(stranger.name);
      await card.getByRole('button', { name: 'Pair', exact: true }).click();
      const cardSending = card.getByRole('button', { name: 'Sending…', exact: true });
      await cardSending.waitFor();
      assert.equal(await cardSending.getAttribute('aria-disabled'), 'true');
      await cardSending.click({ force: true });

      const found = page.locator('section[aria-labelledby="discoverable"]');
      await found.getByRole('button', { name: 'Rescan' }).click();
      await found.getByRole('button', { name: `Pair with ${stranger.name}`, exact: true }).click();
      const foundSending = found.getByRole('button', { name: `Sending a request to ${stranger.name}`, exact: true });
      await foundSending.waitFor();
      assert.equal(await foundSending.getAttribute('aria-disabled'), 'true');
      assert.equal(await foundSending.textContent(), 'Sending…');
      // Marked, not disabled: a disabled button would drop the keyboard's focus to the page.
      assert.equal(await foundSending.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus stays on the button while it sends');
      await foundSending.click({ force: true });
      assert.equal(asked, 2, 'one request from each, none sent twice');
    } finally {
      release();
    }
    await page
      .locator('section[aria-labelledby="pairing-pin"]')
      .getByRole('alert')
      .getByText(/^Not sent\. /)
      .waitFor();
    await page
      .locator('section[aria-labelledby="discoverable"]')
      .getByRole('alert')
      .getByText(/^Not sent\. /)
      .waitFor();
    await page.getByRole('button', { name: `Pair with ${stranger.name}`, exact: true }).waitFor();
    await page.unroute(pairPath);
    await page.unroute(`**${POOL}/peers/discoverable*`);
  });

  it('a Controls switch says what its change came to under the switch, and a refused change as an alert there, not at the top of the page', async () => {
    const inbound = page.getByRole('switch', { name: 'Take work from paired Hubs' });
    const settingsPath = `**${POOL}/settings`;
    await page.route(settingsPath, (route) => (route.request().method() === 'PATCH' ? route.fulfill(REFUSED) : route.fallback()));
    try {
      await inbound.click();
      const alert = page.getByTestId('poolInboundEnabled-said');
      await alert.getByText(`Not switched: ${REFUSAL}`).waitFor();
      assert.equal(await alert.getAttribute('role'), 'alert');
      assert.equal(await inView(alert), true);
      assert.equal(await inbound.getAttribute('aria-describedby'), await alert.getAttribute('id'));
      assert.equal(await inbound.isChecked(), true, 'shown as it still is');
      assert.equal(await top().getByText(REFUSAL).count(), 0, 'not also at the top of the page');
    } finally {
      await page.unroute(settingsPath);
    }
    await inbound.click();
    const said = page.getByTestId('poolInboundEnabled-said').filter({ hasText: 'Take work from paired Hubs switched off.' });
    await said.waitFor();
    assert.equal(await said.getAttribute('role'), 'status');
    assert.equal(await top().getByText('Take work from paired Hubs switched off.').count(), 0, 'not also at the top of the page');
    assert.equal((await status(hub)).directions.inbound.enabled, false);
    await inbound.click();
    await page.getByTestId('poolInboundEnabled-said').getByText('Take work from paired Hubs switched on.').waitFor();
  });
});
