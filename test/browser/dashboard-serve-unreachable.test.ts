/**
 * A Hub listening where Tailscale Serve cannot reach it (127.0.0.2 here; ::1 and a LAN address
 * alike), in real Chromium against a real Hub whose `tailscale` is the fake on PATH. The Hub
 * publishes only http://127.0.0.1:<port>, so from such an address it does not publish itself at
 * all: the setup guide's check and This node's card name the listen address to change, as
 * doctor's C2 does, and never promise that the Hub will publish itself within a minute.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import type { Browser } from 'playwright-core';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { fakeTailscale, fqdn, runningStatus } from '../helpers/fake-tailscale.js';
import { POOL_API, START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

const ACCOUNT = userInfo().username;
const HOST = '127.0.0.2';
const LISTEN_FIX = 'restart the Hub with HUB_HOST=127.0.0.1 (the default), or HUB_HOST=0.0.0.0 to take other interfaces as well as loopback';

describe('dashboard: a Hub that Tailscale Serve cannot reach', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let browser: Browser;
  let hub: HubProcess;

  before(async () => {
    // Tailscale would accept the Hub's changes, and Serve holds nothing: only the listen address stands in the way.
    const fake = fakeTailscale({ status: runningStatus('hub-z'), serve: {}, operatorUser: ACCOUNT });
    [hub, browser] = await startTogether([startHubProcess({ env: { PATH: fake.path }, host: HOST }), launchBrowser()]);
    await eventually(() => hub.log().includes('which Serve cannot reach at 127.0.0.1'), 'the Hub to say Serve cannot reach it');
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop()]);
  });

  it('the check needs action and names the HUB_HOST to restart with, not a wait for the Hub to publish itself', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, hub);
    await gotoPool(page);
    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    const changes = guide.getByTestId('check').filter({ hasText: 'Tailscale accepts changes from this Hub' });
    await changes.getByText('Needs action').waitFor();
    const say = await changes.getByText(`This Hub listens on ${HOST}, where Tailscale Serve cannot reach it`).textContent();
    assert.ok(say?.includes(`so https://${fqdn('hub-z')}/ would not reach it`), say ?? '');
    assert.ok(say?.includes(LISTEN_FIX), say ?? '');
    assert.doesNotMatch(await changes.innerText(), /within a minute/);
    assert.equal(await guide.getByRole('button', { name: 'Continue', exact: true }).isDisabled(), true, 'nothing goes on while Serve cannot reach the Hub');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("with Tailscale refusing the Hub's account too, the check gives the operator command as well, and This node's card asks for the restart before any publishing", async () => {
    const { page, context, errors } = await openPage(browser);
    // The Hub runs as root here, which Tailscale always accepts; a Hub under a service account would report this.
    const command = 'sudo tailscale set --operator=hub';
    await page.route(`**${POOL_API}/tailscale`, async (route) => {
      const answer = await route.fetch();
      const report = (await answer.json()) as { operator: Record<string, unknown> };
      Object.assign(report.operator, { allowed: false, account: 'hub', operatorUser: null, command, basis: 'no operator' });
      await route.fulfill({ response: answer, json: report });
    });
    await signInByLink(page, hub);
    await gotoPool(page);
    const card = page.getByTestId('tailscale-refused');
    await card.getByText(command, { exact: true }).waitFor();
    const cardText = await card.innerText();
    assert.ok(cardText.includes(`Then ${LISTEN_FIX}: on ${HOST} Tailscale Serve cannot reach it`), cardText);
    assert.doesNotMatch(cardText, /within a minute/);

    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const changes = page.getByRole('dialog').getByTestId('check').filter({ hasText: 'Tailscale accepts changes from this Hub' });
    await changes.getByText(`This Hub listens on ${HOST}, where Tailscale Serve cannot reach it`, { exact: false }).waitFor();
    await changes.getByText(command, { exact: true }).waitFor();
    assert.doesNotMatch(await changes.innerText(), /within a minute/);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
