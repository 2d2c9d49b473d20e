/**
 * A change pressed twice on a slow Hub, in real Chromium against a real Hub on loopback with a
 * peer of this build (a fake in this process) paired to it. The page holds each change's call
 * (page.route) as a slow Hub would; the call then goes on to the Hub. Before each control knew
 * its change was out, a second press sent the change again: a second Unpair was refused (the
 * first had done it) and its red refusal took the place of the first one's "Unpaired", and a
 * second Generate PIN replaced the PIN the first had shown. And a number typed into a Controls
 * field while its Save was out was wiped when that Save landed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page, Route } from 'playwright-core';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { eventually, FakePeer, fqdn, pairFakeWithPin, peerNamed, POOL, reservePorts, startNamedHub, type HubProcess } from '../integration/pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

const HUB = fqdn('hub-a');
/** What a control reads while its change is out (web/src/hub-pool/working.tsx). */
const WORKING = 'Working…';

/** The page's `method` calls to `glob`, held until released, then sent on to the Hub; counted. */
async function hold(page: Page, glob: string, method: string): Promise<{ sent: () => number; release: () => Promise<void> }> {
  let sent = 0;
  let open = () => {};
  const released = new Promise<void>((resolve) => (open = resolve));
  const handler = async (route: Route) => {
    if (route.request().method() !== method) return route.fallback();
    sent += 1;
    await released;
    return route.fallback();
  };
  await page.route(glob, handler);
  return {
    sent: () => sent,
    release: async () => {
      open();
      await page.unroute(glob, handler);
    },
  };
}

describe('dashboard: a change pressed again while it is out', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 10 }, () => {
  const peer = new FakePeer('peer-01');
  /** Two Hubs asking to join, one answered with Approve and one with Reject. */
  const askers = [new FakePeer('asker-01'), new FakePeer('asker-02')] as const;
  let hub: HubProcess;
  let browser: Browser;
  let page: Page;
  const section = (id: string) => page.locator(`section[aria-labelledby="${id}"]`);

  /**
   * Presses `control` (named `name`), and while its call is held checks that it reads Working…,
   * is marked aria-disabled with focus kept on it, and that a second press sends nothing; then
   * lets the call go and waits for `done`. Returns once the outcome is said.
   */
  async function pressTwice(o: { name: string; control: Locator; glob: string; method: string; done: Locator; within: Locator }): Promise<void> {
    const held = await hold(page, o.glob, o.method);
    try {
      await o.control.click();
      await eventually(() => held.sent() === 1, `${o.name}'s call to reach the Hub`);
      const working = page.getByRole('button', { name: `${o.name}: working…`, exact: true });
      assert.equal(await working.count(), 1, `${o.name} is named for what it does, with "working…" after it`);
      assert.equal(await working.textContent(), WORKING);
      assert.equal(await working.getAttribute('aria-disabled'), 'true');
      // Marked, not disabled: a disabled button would drop the keyboard's focus to the page.
      assert.equal(await working.evaluate((el) => el === el.ownerDocument.activeElement), true, 'focus stays on the control');
      await working.click({ force: true });
    } finally {
      await held.release();
    }
    await o.done.waitFor();
    assert.equal(held.sent(), 1, `${o.name} sent once`);
    assert.equal(await o.within.getByRole('alert').count(), 0, 'no refusal said');
  }

  before(async () => {
    await Promise.all([peer, ...askers].map((p) => p.start()));
    const ports = await reservePorts(['a']);
    [hub, browser] = await startTogether([
      startNamedHub({ name: HUB, port: ports.a, origins: Object.fromEntries([peer, ...askers].map((p) => [p.name, p.origin])) }),
      launchBrowser(),
    ]);
    await pairFakeWithPin(hub, peer);
    ({ page } = await openPage(browser));
    await signInByLink(page, hub);
    await gotoPool(page);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop(), ...[peer, ...askers].map((p) => p.close())]);
  });

  it("a peer's Disable and Enable: Working… until answered, and a second press sends nothing", async () => {
    const row = page.locator(`[data-testid="paired-hub"][data-peer="${peer.name}"]`);
    for (const verb of ['Disable', 'Enable'])
      await pressTwice({
        name: `${verb} ${peer.name}`,
        control: row.getByRole('button', { name: `${verb} ${peer.name}`, exact: true }),
        glob: `**${POOL}/peers/*/${verb.toLowerCase()}`,
        method: 'POST',
        done: row.getByRole('status').filter({ hasText: verb === 'Disable' ? `${peer.name} disabled` : `${peer.name} enabled.` }),
        within: row,
      });
    assert.equal((await peerNamed(hub, peer.name))?.enabled, true);
  });

  it("a Controls field's Save and a switch: one change each, said as done", async () => {
    const controls = section('controls');
    const label = 'Local affinity (queued requests)';
    await controls.getByLabel(label, { exact: true }).fill('3');
    await pressTwice({
      name: `Save ${label}`,
      control: controls.getByRole('button', { name: `Save ${label}`, exact: true }),
      glob: `**${POOL}/settings`,
      method: 'PATCH',
      done: page.getByTestId('poolLocalAffinity-saved').getByText(`${label} saved.`),
      within: controls,
    });

    const inbound = controls.getByRole('switch', { name: 'Take work from paired Hubs' });
    const held = await hold(page, `**${POOL}/settings`, 'PATCH');
    try {
      await inbound.click();
      await eventually(() => held.sent() === 1, 'the switch’s call to reach the Hub');
      assert.equal(await inbound.getAttribute('aria-disabled'), 'true');
      await controls.locator('.switch').filter({ hasText: 'Take work from paired Hubs' }).getByText(WORKING).waitFor();
      await inbound.click({ force: true });
    } finally {
      await held.release();
    }
    await page.getByTestId('poolInboundEnabled-said').getByText('Take work from paired Hubs switched off.').waitFor();
    assert.equal(held.sent(), 1, 'the switch sent once');
    assert.equal(await inbound.isChecked(), false);
  });

  it('a number typed into a field while its Save is out is kept when that Save lands, and the Hub holds what was sent', async () => {
    const controls = section('controls');
    const label = 'Local affinity (queued requests)';
    const field = controls.getByLabel(label, { exact: true });
    await field.fill('5');
    const held = await hold(page, `**${POOL}/settings`, 'PATCH');
    try {
      await controls.getByRole('button', { name: `Save ${label}`, exact: true }).click();
      await eventually(() => held.sent() === 1, 'the Save’s call to reach the Hub');
      await field.fill('6');
    } finally {
      await held.release();
    }
    await page.getByTestId('poolLocalAffinity-saved').getByText(`${label} saved.`).waitFor();
    // Back from Working…: by then the Save has done all it does to the field.
    const save = controls.getByRole('button', { name: `Save ${label}`, exact: true });
    await save.waitFor();
    assert.equal(await field.inputValue(), '6', 'what was typed after Save stays in the field');
    assert.equal(await save.isEnabled(), true, 'and can be saved in its turn');
    const settings = await hub.api<Record<string, unknown>>('GET', `${POOL}/settings`);
    assert.equal(settings.json.poolLocalAffinity, 5, 'the Hub holds the value that was sent');
  });

  it("Add pin and the pin's Remove: one change each", async () => {
    const pins = section('pins');
    await pressTwice({
      name: 'Add pin',
      control: pins.getByRole('button', { name: 'Add pin', exact: true }),
      glob: `**${POOL}/pins`,
      method: 'POST',
      done: page.getByTestId('pin-said').getByText('Pin saved.'),
      within: pins,
    });
    await pressTwice({
      name: 'Remove the pin for every model',
      control: pins.getByRole('button', { name: 'Remove the pin for every model', exact: true }),
      glob: `**${POOL}/pins?*`,
      method: 'DELETE',
      done: page.getByTestId('pin-removed-said').getByText('Pin removed.'),
      within: pins,
    });
  });

  it('Generate PIN and Cancel PIN: one PIN made, and it is the one shown', async () => {
    const card = section('pairing-pin');
    const minted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/pairing-pin'));
    await pressTwice({
      name: 'Generate PIN',
      control: card.getByRole('button', { name: 'Generate PIN', exact: true }),
      glob: `**${POOL}/pairing-pin`,
      method: 'POST',
      done: card.getByText('PIN generated. Type it on the other Hub within ten minutes.'),
      within: card,
    });
    const { pin } = (await (await minted).json()) as { pin: string };
    await card.getByTestId('pin-digits').getByText(pin, { exact: true }).waitFor();
    await pressTwice({
      name: 'Cancel PIN',
      control: card.getByRole('button', { name: 'Cancel PIN', exact: true }),
      glob: `**${POOL}/pairing-pin`,
      method: 'DELETE',
      done: card.getByText('PIN cancelled.'),
      within: card,
    });
  });

  it("a waiting request's Approve and Reject: one answer each, said as done", async () => {
    for (const asker of askers) assert.equal((await asker.requestPairing(hub)).status, 200);
    await page.reload();
    await page.getByTestId('pool-badge').waitFor();
    const pending = section('pending');
    const [approved, rejected] = askers;
    await pressTwice({
      name: `Reject ${rejected.name}`,
      control: pending.getByRole('button', { name: `Reject ${rejected.name}`, exact: true }),
      glob: `**${POOL}/peers/*/reject`,
      method: 'POST',
      done: page.getByTestId('pending-said').getByText(`Rejected ${rejected.name}.`),
      within: pending,
    });
    await pressTwice({
      name: `Approve ${approved.name}`,
      control: pending.getByRole('button', { name: `Approve ${approved.name}`, exact: true }),
      glob: `**${POOL}/peers/*/approve`,
      method: 'POST',
      done: page.getByTestId('pending-said').getByText(`Approved ${approved.name}.`),
      within: pending,
    });
    assert.equal((await peerNamed(hub, approved.name))?.status, 'connected');
    assert.equal(await peerNamed(hub, rejected.name), null);
  });

  it('Unpair pressed twice says Unpaired, not the refusal of a second Unpair', async () => {
    const confirm = (d: { accept: () => Promise<void> }) => void d.accept();
    page.on('dialog', confirm);
    try {
      const paired = section('paired');
      await pressTwice({
        name: `Unpair ${peer.name}`,
        control: paired.getByRole('button', { name: `Unpair ${peer.name}`, exact: true }),
        glob: `**${POOL}/peers/*`,
        method: 'DELETE',
        done: page.getByTestId('paired-said').getByText(`Unpaired ${peer.name}.`),
        within: paired,
      });
    } finally {
      page.off('dialog', confirm);
    }
    assert.equal(await peerNamed(hub, peer.name), null);
  });
});
