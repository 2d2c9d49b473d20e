/**
 * Controls, the guide's Check step, re-entry and a request that vanished, in real Chromium
 * against two real Hubs. Hub A runs with HUB_POOL_OUTBOUND_DISABLED=true, so one switch is locked
 * by its .env and says so.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Locator } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByKey, signInByLink, type WatchedPage } from './browser.js';
import { runCli } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

/** How late each status read answers in the late-status case: far longer than a click takes. */
const STATUS_DELAY_MS = 1_500;

describe('dashboard: controls, the Check step, re-entry and a vanished request', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 8 }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;
  let pageA: WatchedPage;

  before(async () => {
    [pool, browser] = await startTogether([
      startPool({
        hubs: { a: { ollama: { models: ['m-a:1b'] }, env: { HUB_POOL_OUTBOUND_DISABLED: 'true' } }, b: { ollama: { models: ['m-b:1b'] } } },
        pairs: [],
      }),
      launchBrowser(),
    ]);
    pageA = await openPage(browser);
    await signInByLink(pageA.page, pool.a.process);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('first-run setup finishes without Tailscale or pooling; then Home offers "Pool your Hubs" until dismissed, and both outlive a reload', async () => {
    const a = pageA.page;
    await a.goto(`${pool.a.url}/#/`);
    const firstRun = a.getByTestId('first-run');
    await firstRun.getByText('Engines').waitFor();
    await firstRun.getByText('Named by HUB_NODE_FQDN').waitFor();
    assert.equal(await firstRun.getByRole('heading', { name: 'Pool with your other Hubs' }).count(), 0, 'the pool section needs Tailscale connected');
    assert.equal(await a.getByRole('heading', { name: 'Pool your Hubs' }).count(), 0, 'the card waits while first-run setup shows');
    await firstRun.getByRole('button', { name: 'Finish setup' }).click();
    await firstRun.waitFor({ state: 'detached' });
    await a.getByRole('heading', { name: 'Pool your Hubs' }).waitFor();
    await a.getByRole('button', { name: 'Dismiss' }).click();
    await a.getByRole('heading', { name: 'Pool your Hubs' }).waitFor({ state: 'detached' });
    await a.reload();
    await a.getByRole('heading', { name: 'Models in the pool' }).waitFor();
    assert.equal(await a.getByRole('heading', { name: 'Pool your Hubs' }).count(), 0);
    assert.equal(await a.getByTestId('first-run').count(), 0, 'finished stays finished');
  });

  it('an env-locked switch says so and cannot be used; the others apply at once, and numbers need Save', async () => {
    const a = pageA.page;
    await gotoPool(a);
    await a.getByTestId('pool-badge').getByText('Partly off').waitFor();
    const outbound = a.getByRole('switch', { name: 'Send work to paired Hubs' });
    assert.equal(await outbound.isDisabled(), true);
    await a.getByText("Disabled in this Hub's .env (HUB_POOL_OUTBOUND_DISABLED=true)").waitFor();

    await a.getByRole('switch', { name: 'Take work from paired Hubs' }).click();
    await a.getByText('Take work from paired Hubs switched off.').waitFor();
    assert.equal((await pool.a.status()).settings.poolInboundEnabled, false);
    await a.getByText("Sending work to peers is switched off in this Hub's .env, and taking work from peers under Controls.").waitFor();
    await a.getByRole('switch', { name: 'Take work from paired Hubs' }).click();
    await a.getByText('Take work from paired Hubs switched on.').waitFor();

    await a.getByLabel('Local affinity (queued requests)', { exact: true }).fill('3');
    assert.equal((await pool.a.status()).settings.poolLocalAffinity, 1, 'nothing changes before Save');
    await a.locator('.field').filter({ hasText: 'Local affinity' }).getByRole('button', { name: 'Save' }).click();
    await a.getByText('Local affinity (queued requests) saved.').waitFor();
    assert.equal((await pool.a.status()).settings.poolLocalAffinity, 3);

    await a.getByLabel('Health check interval (seconds)', { exact: true }).fill('5');
    await a.locator('.field').filter({ hasText: 'Health check interval' }).getByRole('button', { name: 'Save' }).click();
    await a
      .getByText(/poolHealthPollSeconds/)
      .first()
      .waitFor();
    assert.equal((await pool.a.status()).settings.poolHealthPollSeconds, 30, 'an out-of-range value is refused with the Hub’s sentence');
    // Also beside the field, where the operator is looking: the page's own message is at its top, out of view.
    const pollField = a.getByLabel('Health check interval (seconds)', { exact: true });
    await a
      .getByTestId('poolHealthPollSeconds-refused')
      .getByText(/^Not saved: poolHealthPollSeconds /)
      .waitFor();
    assert.equal(await a.getByTestId('poolHealthPollSeconds-refused').isVisible(), true);
    assert.equal(await a.getByTestId('poolHealthPollSeconds-refused').getAttribute('role'), 'alert');
    assert.equal(await pollField.getAttribute('aria-invalid'), 'true');
    await pollField.fill('30');
    await a.getByTestId('poolHealthPollSeconds-refused').waitFor({ state: 'detached' });
    assert.equal(await pollField.getAttribute('aria-invalid'), 'false');

    await a.getByRole('switch', { name: 'Hub Pool' }).click();
    await a.getByTestId('pool-badge').getByText('Off', { exact: true }).waitFor();
  });

  it('a prefix-affinity margin saved while the limit is 0 says it does nothing, until a limit is set', async () => {
    const a = pageA.page;
    const marginInput = a.getByLabel('Prefix affinity margin (queued requests)', { exact: true });
    const limitInput = a.getByLabel('Prefix affinity limit (queued requests; 0 is off)', { exact: true });
    const margin = a.locator('.field').filter({ has: marginInput });
    const limit = a.locator('.field').filter({ has: limitInput });
    assert.equal(await a.getByTestId('poolPrefixAffinityMargin-inert').count(), 0, 'no margin set: nothing to say');
    await marginInput.fill('3');
    await margin.getByRole('button', { name: 'Save' }).click();
    await a.getByText('Prefix affinity margin (queued requests) saved.').waitFor();
    await a.getByTestId('poolPrefixAffinityMargin-inert').getByText('Does nothing while poolPrefixAffinityMaxInFlight is 0').waitFor();

    await limitInput.fill('2');
    await limit.getByRole('button', { name: 'Save' }).click();
    await a.getByTestId('poolPrefixAffinityMargin-inert').waitFor({ state: 'detached' });
    assert.deepEqual([(await pool.a.status()).settings.poolPrefixAffinityMaxInFlight, (await pool.a.status()).settings.poolPrefixAffinityMargin], [2, 3]);
  });

  it("reports a switch's change only once the switch shows it, however late the status comes back", async () => {
    const a = pageA.page;
    const inbound = a.getByRole('switch', { name: 'Take work from paired Hubs' });
    assert.equal(await inbound.isChecked(), true);
    // Every status read answers late, as on a loaded machine, where a second click used to land
    // while the switch was still drawn in its old position and undo the first.
    const lateStatus = `**${POOL_API}/status`;
    await a.route(lateStatus, async (route) => {
      await sleep(STATUS_DELAY_MS);
      await route.continue();
    });
    try {
      await inbound.click();
      await a.getByText('Take work from paired Hubs switched off.').waitFor();
      assert.equal(await inbound.isChecked(), false, 'the message and the switch agree');
      await inbound.click();
      await a.getByText('Take work from paired Hubs switched on.').waitFor();
      assert.equal(await inbound.isChecked(), true);
    } finally {
      await a.unroute(lateStatus);
    }
  });

  it('Check: Needs action blocks Continue until its fix button is used; warnings allow Continue anyway', async () => {
    const a = pageA.page;
    await a.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = a.getByRole('dialog');
    const poolOn = guide.getByTestId('check').filter({ hasText: 'Hub Pool is on' });
    await poolOn.getByText('Needs action').waitFor();
    assert.equal(await guide.getByRole('button', { name: 'Continue', exact: true }).isDisabled(), true);
    await poolOn.getByRole('button', { name: 'Turn on Hub Pool' }).click();
    await poolOn.getByText('Ready').waitFor();
    assert.equal((await pool.a.status()).enabled, true);
    await guide
      .getByTestId('check')
      .filter({ hasText: 'This Hub sends work to paired Hubs' })
      .getByText(/HUB_POOL_OUTBOUND_DISABLED/)
      .waitFor();
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    await guide.getByRole('button', { name: 'Choose Hubs' }).waitFor();
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();
  });

  it('the .env-locked switch shows off and locked to a read-only sign-in, with Hub Pool on and with it switched off by its setting, and to an operator whose settings catalogue could not be read, with that failure', async () => {
    const created = await runCli(['api-key', 'create', '--name', 'monitor', '--scope', 'qa:read', '--yes', '--json'], { dataDir: pool.a.process.dataDir });
    assert.equal(created.code, 0, created.stderr);
    const readOnly = await openPage(browser);
    await signInByKey(readOnly.page, pool.a.process, (JSON.parse(created.stdout) as { key: string }).key);
    await readOnly.page.getByRole('button', { name: 'Sign out' }).waitFor();
    await gotoPool(readOnly.page);
    await readOnly.page.getByText("Disabled in this Hub's .env (HUB_POOL_OUTBOUND_DISABLED=true)").waitFor();
    assert.equal(await readOnly.page.getByRole('switch', { name: 'Send work to paired Hubs' }).isChecked(), false);
    assert.equal(
      await readOnly.page.getByRole('switch', { name: 'Take work from paired Hubs' }).isChecked(),
      true,
      'a switch the .env leaves alone shows its setting',
    );

    // With Hub Pool off, status names the pool's switch for both directions; the outbound lock
    // must still show, as turning the pool back on would leave sending off. A read-only sign-in
    // has no settings catalogue to learn it from.
    await pool.a.patchSettings({ poolEnabled: false });
    try {
      await readOnly.page.reload();
      await gotoPool(readOnly.page);
      await readOnly.page.getByTestId('pool-badge').getByText('Off', { exact: true }).waitFor();
      const lockNote = readOnly.page.getByText("Disabled in this Hub's .env (HUB_POOL_OUTBOUND_DISABLED=true)");
      assert.equal(await lockNote.count(), 1, 'the outbound lock shows while Hub Pool is off by its setting');
      assert.equal(await readOnly.page.getByRole('switch', { name: 'Send work to paired Hubs' }).isChecked(), false);
      assert.equal(await readOnly.page.getByText(/HUB_POOL_INBOUND_DISABLED/).count(), 0, 'inbound has no flag set, so no lock');
    } finally {
      await pool.a.patchSettings({ poolEnabled: true });
    }
    await readOnly.context.close();

    const operator = await openPage(browser);
    await operator.page.route(`**${POOL_API}/settings/catalogue*`, (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'HUB_ERR_TEST', message: 'CATALOGUE DOWN' } }) }),
    );
    await signInByLink(operator.page, pool.a.process);
    await gotoPool(operator.page);
    await operator.page.getByRole('alert').getByText('Could not read the settings catalogue: CATALOGUE DOWN').waitFor();
    await operator.page.getByText("Disabled in this Hub's .env (HUB_POOL_OUTBOUND_DISABLED=true)").waitFor();
    const outbound = operator.page.getByRole('switch', { name: 'Send work to paired Hubs' });
    assert.deepEqual([await outbound.isChecked(), await outbound.isDisabled()], [false, true]);
    await operator.context.close();
  });

  it('Check: with Hub Pool off, sending work waits on it with no fix of its own; once it is on, "Turn on sending work" turns the setting on', async () => {
    await pool.b.patchSettings({ poolEnabled: false, poolOutboundEnabled: false });
    const { page: b, context } = await openPage(browser);
    await signInByLink(b, pool.b.process);
    await gotoPool(b);
    await b.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = b.getByRole('dialog');
    const outbound = guide.getByTestId('check').filter({ hasText: 'This Hub sends work to paired Hubs' });
    await outbound.getByText('Depends on Hub Pool being on').waitFor();
    assert.equal(await outbound.getByRole('button').count(), 0, 'its own setting would change nothing while the pool is off');

    await guide.getByTestId('check').filter({ hasText: 'Hub Pool is on' }).getByRole('button', { name: 'Turn on Hub Pool' }).click();
    await outbound.getByText('Sending work to peers is switched off under Controls.').waitFor();
    await outbound.getByRole('button', { name: 'Turn on sending work' }).click();
    await outbound.getByText('Ready').waitFor();
    assert.equal((await pool.b.status()).settings.poolOutboundEnabled, true);
    await context.close();
  });

  it('Check: with Hub Pool off and sending locked by the .env, the check says the .env keeps it off once the pool is on', async () => {
    await pool.a.patchSettings({ poolEnabled: false });
    const { page: a, context } = await openPage(browser);
    try {
      await signInByLink(a, pool.a.process);
      await gotoPool(a);
      await a.getByRole('button', { name: 'Set up Hub Pool' }).click();
      const outbound = a.getByRole('dialog').getByTestId('check').filter({ hasText: 'This Hub sends work to paired Hubs' });
      await outbound.getByText('Depends on Hub Pool being on').waitFor();
      await outbound.getByText("HUB_POOL_OUTBOUND_DISABLED in this Hub's .env keeps it off even then.").waitFor();
    } finally {
      await pool.a.patchSettings({ poolEnabled: true });
      await context.close();
    }
  });

  it('re-entry opens on Approve with the request still waiting; a request rejected there is gone, with Pair again; a cancelled one is not', async () => {
    const a = pageA.page;
    const sendTo = async (guide: Locator) => {
      await guide.getByLabel('Add a Hub by its tailnet name').fill(pool.b.name);
      await guide.getByRole('button', { name: 'Add', exact: true }).click();
      await guide.getByRole('button', { name: 'Send 1 request' }).click();
      await guide.getByTestId('connect-result').getByText('Request sent').waitFor();
      await guide.getByRole('button', { name: 'Continue' }).click();
      await guide.getByTestId('guide-waiting').filter({ hasText: pool.b.name }).waitFor();
    };
    await a.getByRole('button', { name: 'Set up Hub Pool' }).click();
    let guide = a.getByRole('dialog');
    await guide.getByRole('button', { name: 'Continue anyway' }).click();
    await sendTo(guide);
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();

    // Reopened: read from the Hub, on Approve, nothing sent again.
    await a.getByRole('button', { name: 'Set up Hub Pool' }).click();
    guide = a.getByRole('dialog');
    await guide.getByTestId('guide-waiting').filter({ hasText: pool.b.name }).waitFor();
    const rows = (await pool.b.api<{ peers: { nodeFqdn: string }[] }>('GET', `${POOL_API}/peers`)).json.peers.filter((p) => p.nodeFqdn === pool.a.name);
    assert.equal(rows.length, 1, 'one request on B, not two');

    // Rejected on B, but sent before this open of the guide: the row goes, and nothing is reported gone.
    const reject = async () => {
      const onB = (await pool.b.peer(pool.a))!;
      assert.equal((await pool.b.api('POST', `${POOL_API}/peers/${onB.id}/reject`)).status, 200);
    };
    await reject();
    await guide.getByTestId('guide-waiting').waitFor({ state: 'detached' });
    assert.equal(await guide.getByTestId('guide-gone').count(), 0, 'only requests sent since the guide opened are reported gone');

    // Sent from this open of the guide, then rejected on B: gone, with Pair again.
    await guide.getByRole('button', { name: 'Add another Hub' }).click();
    await sendTo(guide);
    await reject();
    const gone = guide.getByTestId('guide-gone').filter({ hasText: `The request to ${pool.b.name} is gone.` });
    await gone.waitFor();
    await gone.getByRole('button', { name: 'Pair again' }).click();
    await guide.getByTestId('guide-waiting').filter({ hasText: pool.b.name }).waitFor();
    await guide.getByTestId('guide-gone').waitFor({ state: 'detached' });
    assert.equal((await pool.b.peer(pool.a))?.status, 'pending', 'Pair again sent a new request');

    // Cancelled here: gone from Waiting, and not reported as gone.
    await guide.getByRole('button', { name: 'Cancel request' }).click();
    await guide.getByTestId('guide-waiting').waitFor({ state: 'detached' });
    assert.equal(await guide.getByTestId('guide-gone').count(), 0, 'a request cancelled here is not reported gone');
    assert.deepEqual(
      pageA.errors.filter((e) => !/Failed to load resource: .* 400 \(Bad Request\)/.test(e)),
      [],
      'no console errors beyond the refused setting',
    );
  });
});
