/**
 * The setup guide's Find step with several Hubs found, in real Chromium against one real Hub
 * whose discovery answer is replaced in the browser (the test Hubs are on no tailnet, so a real
 * scan finds nobody): the cards' order, chips and layout, nothing chosen for the operator, Select
 * all, the main button's count, the PIN field that works for one Hub only (and holds no digits
 * while it is off), Add another Hub starting the step afresh, when the step scans, and the phone
 * layout. Discoverable devices on the Hub Pool page lists the same answer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { answerDiscovery, gotoPool, launchBrowser, openPage, PHONE, signInByLink } from './browser.js';

/** As GET /peers/discoverable lists candidates (src/discovery/discovery-service.ts), in no useful order. */
const FOUND = [
  { nodeFqdn: 'zeta.tail0.ts.net', displayName: 'zeta', deviceId: null, os: 'linux', online: true, poolProtocol: 1 },
  { nodeFqdn: 'alpha.tail0.ts.net', displayName: 'alpha', deviceId: null, os: 'macOS', online: false, poolProtocol: 1 },
  { nodeFqdn: 'mid.tail0.ts.net', displayName: 'mid', deviceId: null, os: 'windows', online: true, poolProtocol: 1 },
];
const SORTED = ['alpha', 'mid', 'zeta'];

describe("dashboard: the setup guide's Find step", { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 5 }, () => {
  let pool: Pool<'a'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await Promise.all([startPool({ hubs: { a: {} }, pairs: [] }), launchBrowser()]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  /** Signs a page in with discovery replaced and opens the guide at Find; returns the guide and the scan count. */
  async function findStep(page: Page): Promise<{ guide: Locator; scans: () => number }> {
    await signInByLink(page, pool.a.process);
    const scans = await answerDiscovery(page, FOUND);
    await gotoPool(page);
    await eventually(() => scans() === 1, 'the Hub Pool page’s own scan as it opens');
    await page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    // Check has only warnings here (the name comes from HUB_NODE_FQDN).
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    await guide.getByRole('checkbox', { name: 'zeta', exact: true }).waitFor();
    return { guide, scans };
  }

  const cardOf = (guide: Locator, name: string) => guide.locator('.card').filter({ has: guide.page().getByRole('checkbox', { name, exact: true }) });

  it('cards sorted by name, each with its OS and Online/Offline chips, two to a row on a wide screen, and none chosen', async () => {
    const { page, context } = await openPage(browser);
    const { guide } = await findStep(page);
    assert.deepEqual(await guide.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.labels?.[0]?.textContent ?? '')), SORTED);
    for (const h of FOUND) {
      const card = cardOf(guide, h.displayName);
      await card.getByText(h.os, { exact: true }).waitFor();
      await card.getByText(h.online ? 'Online' : 'Offline', { exact: true }).waitFor();
    }
    for (const name of SORTED) assert.equal(await guide.getByRole('checkbox', { name, exact: true }).isChecked(), false, `${name} is not chosen for you`);
    assert.equal(await guide.getByRole('button', { name: 'Choose Hubs' }).isDisabled(), true);

    const [first, second, third] = await Promise.all(SORTED.map(async (n) => (await cardOf(guide, n).boundingBox())!));
    assert.equal(Math.round(first!.y), Math.round(second!.y), 'the first two cards share a row');
    assert.ok(second!.x > first!.x, 'side by side');
    assert.ok(third!.y >= first!.y + first!.height, 'the third starts the next row');
    await context.close();
  });

  it('sorts by the name each card shows, so a name comes before the longer names it begins', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    // Sorted by tailnet name, "nas-backup.…" comes first: "-" sorts before ".".
    const named = ['nas-backup', 'nas'].map((n) => ({ ...FOUND[0]!, nodeFqdn: `${n}.tail0.ts.net`, displayName: n }));
    await answerDiscovery(page, named);
    await gotoPool(page);
    const section = page.locator('section[aria-labelledby="discoverable"]');
    await section.getByText('nas-backup', { exact: true }).waitFor();
    assert.deepEqual(await section.locator('li span[title]').allTextContents(), ['nas', 'nas-backup'], 'Discoverable devices');
    await page.locator('section[aria-labelledby="pool-title"]').getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    await guide.getByRole('checkbox', { name: 'nas-backup', exact: true }).waitFor();
    assert.deepEqual(
      await guide.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.labels?.[0]?.textContent ?? '')),
      ['nas', 'nas-backup'],
      'Find',
    );
    await context.close();
  });

  it('Select all chooses every Hub and the button counts them; the PIN field takes a PIN only while exactly one Hub is chosen', async () => {
    const { page, context } = await openPage(browser);
    const { guide } = await findStep(page);
    await guide.getByText('Have a PIN?').click();
    const pin = guide.getByLabel('PIN from the other Hub');
    assert.equal(await pin.isDisabled(), true, 'no Hub chosen');

    await guide.getByRole('button', { name: 'Select all' }).click();
    for (const name of SORTED) assert.equal(await guide.getByRole('checkbox', { name, exact: true }).isChecked(), true);
    await guide.getByRole('button', { name: 'Send 3 requests' }).waitFor();
    assert.equal(await pin.isDisabled(), true, 'three Hubs chosen');
    await guide.getByText('Each PIN belongs to a single Hub: choose just that one Hub to use it.').waitFor();

    await guide.getByRole('checkbox', { name: 'zeta', exact: true }).uncheck();
    await guide.getByRole('button', { name: 'Send 2 requests' }).waitFor();
    assert.equal(await pin.isDisabled(), true, 'two Hubs chosen');
    await guide.getByRole('checkbox', { name: 'mid', exact: true }).uncheck();
    await guide.getByRole('button', { name: 'Send 1 request' }).waitFor();
    assert.equal(await pin.isDisabled(), false, 'exactly one Hub chosen');
    await context.close();
  });

  /** Answers every pair request in the browser as sent, so no Hub is asked; returns the bodies sent. */
  async function answerPairs(page: Page): Promise<{ nodeFqdn: string; pin?: string }[]> {
    const bodies: { nodeFqdn: string; pin?: string }[] = [];
    await page.route(`**${POOL_API}/peers/pair`, (route) => {
      bodies.push(route.request().postDataJSON() as { nodeFqdn: string; pin?: string });
      return route.fulfill({ json: { peer: null, pinVerified: false } });
    });
    return bodies;
  }

  it('digits typed for one Hub go once a second is chosen: the field, off, shows none, starts empty back at one Hub, and no request to several carries a PIN', async () => {
    const { page, context } = await openPage(browser);
    const { guide } = await findStep(page);
    const bodies = await answerPairs(page);
    await guide.getByText('Have a PIN?').click();
    const pin = guide.getByLabel('PIN from the other Hub');

    await guide.getByRole('checkbox', { name: 'alpha', exact: true }).check();
    await pin.fill('123456');
    await guide.getByRole('checkbox', { name: 'mid', exact: true }).check();
    await guide.getByRole('button', { name: 'Send 2 requests' }).waitFor();
    assert.equal(await pin.isDisabled(), true, 'two Hubs chosen');
    assert.equal(await pin.inputValue(), '', 'a field that is off shows no digits');

    // Which of the two the digits were for is not known, so they do not come back for the one left.
    await guide.getByRole('checkbox', { name: 'mid', exact: true }).uncheck();
    await guide.getByRole('button', { name: 'Send 1 request' }).waitFor();
    assert.equal(await pin.isDisabled(), false, 'one Hub chosen');
    assert.equal(await pin.inputValue(), '', 'back at one Hub, the field starts empty');

    await pin.fill('654321');
    await guide.getByRole('button', { name: 'Select all' }).click();
    await guide.getByRole('button', { name: 'Send 3 requests' }).click();
    await eventually(() => bodies.length === 3, 'the three requests');
    assert.deepEqual(
      bodies.map((b) => b.pin),
      [undefined, undefined, undefined],
      'none carries the PIN typed for one Hub',
    );
    await context.close();
  });

  it('Add another Hub opens Find afresh: nothing chosen, no card for a name typed last time, and the name field empty', async () => {
    const { page, context } = await openPage(browser);
    const { guide } = await findStep(page);
    await answerPairs(page);
    const TYPED = 'typed.tail0.ts.net';
    await guide.getByLabel('Add a Hub by its tailnet name').fill(TYPED);
    await guide.getByRole('button', { name: 'Add', exact: true }).click();
    await guide.getByRole('checkbox', { name: 'alpha', exact: true }).check();
    // Typed but never added: left in the field as the requests go.
    await guide.getByLabel('Add a Hub by its tailnet name').fill('half-typed');
    await guide.getByRole('button', { name: 'Send 2 requests' }).click();
    await guide.getByTestId('connect-result').getByText('Request sent').nth(1).waitFor();
    await guide.getByRole('button', { name: 'Continue' }).click();

    await guide.getByRole('button', { name: 'Add another Hub' }).click();
    await guide.getByRole('checkbox', { name: 'zeta', exact: true }).waitFor();
    assert.deepEqual(
      await guide.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.labels?.[0]?.textContent ?? '')),
      SORTED,
      'only the Hubs found: no card for the name typed last time',
    );
    for (const name of SORTED) assert.equal(await guide.getByRole('checkbox', { name, exact: true }).isChecked(), false, `${name} is not chosen`);
    assert.equal(await guide.getByText('Typed by you').count(), 0);
    assert.equal(await guide.getByLabel('Add a Hub by its tailnet name').inputValue(), '');
    assert.equal(await guide.getByRole('button', { name: 'Choose Hubs' }).isDisabled(), true);
    await context.close();
  });

  it('scans when it opens and on Rescan, and never on a timer', async () => {
    const { page, context } = await openPage(browser);
    await page.clock.install();
    const { guide, scans } = await findStep(page);
    await eventually(() => scans() === 2, 'the scan as Find opens');
    // Ten minutes with the step open: no timer asks again.
    await page.clock.runFor(10 * 60_000);
    await guide.getByRole('button', { name: 'Rescan' }).click();
    await eventually(() => scans() === 3, 'the scan Rescan asks for');
    assert.equal(scans(), 3, 'only the page, Find and Rescan asked');
    await context.close();
  });

  it('on a phone the guide fills the screen, with "Step 2 of 4 · Find" over a progress bar, and the cards one to a row', async () => {
    const { page, context } = await openPage(browser, PHONE);
    const { guide } = await findStep(page);
    const box = (await guide.boundingBox())!;
    assert.deepEqual([box.x, box.y, box.width, box.height].map(Math.round), [0, 0, PHONE.width, PHONE.height], 'the whole screen');
    const steps = guide.getByTestId('phone-steps');
    await steps.getByText('Step 2 of 4 · Find', { exact: true }).waitFor();
    assert.equal(await steps.getByRole('progressbar').getAttribute('value'), '2');
    const [first, second] = await Promise.all(SORTED.slice(0, 2).map(async (n) => (await cardOf(guide, n).boundingBox())!));
    assert.ok(second!.y >= first!.y + first!.height, 'one card to a row');
    await context.close();
  });

  it('Discoverable devices names each Hub by its short name, with its full tailnet name on hover', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await answerDiscovery(page, FOUND);
    await gotoPool(page);
    const section = page.locator('section[aria-labelledby="discoverable"]');
    for (const h of FOUND) {
      const name = section.getByText(h.displayName, { exact: true });
      await name.waitFor();
      assert.equal(await name.getAttribute('title'), h.nodeFqdn);
    }
    await context.close();
  });
});
