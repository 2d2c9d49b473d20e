/**
 * What the dashboard shows of this Hub's Tailscale, in real Chromium against real Hubs whose
 * `tailscale` is the fake on PATH (the one part that cannot run here): first-run setup with its
 * optional pool section, the setup guide's Check step read from the Hub's Tailscale report (the
 * real state and its fix, not a standing warning), This node's Tailscale IP, and the "Tailscale
 * refused the Hub's changes" card with the exact command.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import type { Browser } from 'playwright-core';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { fakeTailscale, fqdn, runningStatus, type FakeTailscale } from '../helpers/fake-tailscale.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, screenshot, seriousA11yViolations, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

const ACCOUNT = userInfo().username;
/** The address runningStatus gives the fake's own node. */
const OWN_IP = '100.101.1.2';

describe('dashboard: Tailscale as the Hub reports it', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 5 }, () => {
  let browser: Browser;
  /** Tailscale lets it publish itself, and certificates are on: every check is ready. */
  let ready: { hub: HubProcess; fake: FakeTailscale };
  /** Tailscale refuses its Serve change, and HTTPS certificates are off for the tailnet. */
  let refused: { hub: HubProcess; fake: FakeTailscale };
  /** Tailscale is up, but its answer gives this machine no DNS name (MagicDNS off for the tailnet). */
  let nameless: { hub: HubProcess; fake: FakeTailscale };

  before(async () => {
    const readyFake = fakeTailscale({ status: runningStatus('hub-x'), serve: {}, operatorUser: ACCOUNT });
    const refusedFake = fakeTailscale({ status: { ...runningStatus('hub-y'), CertDomains: [] }, serve: {}, serveRefused: true });
    const running = runningStatus('hub-z') as { Self: Record<string, unknown> };
    const namelessFake = fakeTailscale({ status: { ...running, Self: { ...running.Self, DNSName: '' } }, serve: {}, operatorUser: ACCOUNT });
    const [readyHub, refusedHub, namelessHub, b] = await startTogether([
      startHubProcess({ env: { PATH: readyFake.path } }),
      startHubProcess({ env: { PATH: refusedFake.path } }),
      startHubProcess({ env: { PATH: namelessFake.path } }),
      launchBrowser(),
    ]);
    ready = { hub: readyHub, fake: readyFake };
    refused = { hub: refusedHub, fake: refusedFake };
    nameless = { hub: namelessHub, fake: namelessFake };
    browser = b;
    await eventually(
      () => readyFake.calls().some((c) => c.includes('--bg')) && readyFake.state().serve?.Web !== undefined,
      'hub-x to publish itself with Serve',
    );
    await eventually(() => refusedHub.log().includes("Tailscale refused the Hub's changes"), 'hub-y to be refused by Tailscale');
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), ready?.hub.stop(), refused?.hub.stop(), nameless?.hub.stop()]);
  });

  it('first run with Tailscale connected offers "Pool with your other Hubs"; every check is ready, so the guide opens at Find; Finish setup never depends on it', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, ready.hub);
    const firstRun = page.getByTestId('first-run');
    await firstRun.getByText(`This Hub is ${fqdn('hub-x')}.`).waitFor();
    await firstRun.getByText('Active', { exact: true }).waitFor();
    await firstRun.getByRole('heading', { name: 'Pool with your other Hubs' }).waitFor();
    assert.deepEqual(await seriousA11yViolations(page), [], 'Home with first-run setup');
    await firstRun.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: 'Choose Hubs' }).waitFor();
    assert.equal(await guide.getByRole('heading', { name: 'Check' }).count(), 0, 'Check is skipped when everything is ready');
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();

    await firstRun.getByRole('button', { name: 'Finish setup' }).click();
    await firstRun.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Pool your Hubs' }).waitFor();

    await gotoPool(page);
    await page.getByTestId('tailscale-ip').getByText(OWN_IP).waitFor();
    assert.equal(await page.getByTestId('tailscale-refused').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a refused Serve change and missing certificates are Needs action with their fixes; This node shows the card with the exact command; Check again sees the fix', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, refused.hub);
    await gotoPool(page);
    const command = `sudo tailscale set --operator=${ACCOUNT}`;
    const card = page.getByTestId('tailscale-refused');
    await card.getByRole('heading', { name: 'Tailscale refused the Hub’s changes' }).waitFor();
    await card.getByText(command, { exact: true }).waitFor();
    await page.getByTestId('tailscale-ip').getByText(OWN_IP).waitFor();
    await screenshot(page, 'tailscale-refused-1440');

    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    const check = (name: string) => guide.getByTestId('check').filter({ hasText: name });
    const changes = check('Tailscale accepts changes from this Hub');
    await changes.getByText('Needs action').waitFor();
    await changes.getByText(command, { exact: true }).waitFor();
    const certificates = check('HTTPS certificates available');
    await certificates.getByText('Needs action').waitFor();
    await certificates.getByText(/HTTPS certificates are off for this tailnet/).waitFor();
    assert.equal(await certificates.getByRole('link', { name: 'Open Tailscale DNS settings' }).getAttribute('href'), 'https://login.tailscale.com/admin/dns');
    await check('Tailscale connected with a tailnet name').getByText('Ready').waitFor();
    assert.equal(await guide.getByRole('button', { name: 'Continue', exact: true }).isDisabled(), true, 'nothing goes on while a check needs action');
    assert.deepEqual(await seriousA11yViolations(page), [], 'Check step with problems');

    // The operator runs the commands on the host: Serve now publishes the Hub.
    const port = new URL(refused.hub.url).port;
    const name = fqdn('hub-y');
    refused.fake.set({
      ...refused.fake.state(),
      serveRefused: false,
      operatorUser: ACCOUNT,
      serve: { TCP: { 443: { HTTPS: true } }, Web: { [`${name}:443`]: { Handlers: { '/': { Proxy: `http://127.0.0.1:${port}` } } } } },
    });
    await guide.getByRole('button', { name: 'Check again' }).click();
    await changes.getByText('Ready').waitFor();
    await changes.getByText(`Tailscale Serve publishes this Hub at https://${name}/.`).waitFor();
    await certificates.getByText('Needs action').waitFor();
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('Tailscale connected but no tailnet name: the Check step needs action and says to turn on MagicDNS, then Check again', async () => {
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, nameless.hub);
    await gotoPool(page);
    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = page.getByRole('dialog');
    const tailscale = guide.getByTestId('check').filter({ hasText: 'Tailscale connected with a tailnet name' });
    await tailscale.getByText('Needs action').waitFor();
    await tailscale.getByText(/Tailscale is connected, but this Hub has no tailnet name/).waitFor();
    await tailscale.getByText(/Turn on MagicDNS for the tailnet, then select Check again/).waitFor();
    assert.equal(await tailscale.getByRole('link', { name: 'Open Tailscale DNS settings' }).getAttribute('href'), 'https://login.tailscale.com/admin/dns');
    await guide.getByRole('button', { name: 'Check again' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('with Tailscale stopped the Hub keeps its name but is not connected: the Check step needs action and Home offers no "Pool your Hubs" card', async () => {
    ready.fake.set({ ...ready.fake.state(), status: { ...runningStatus('hub-x'), BackendState: 'Stopped' } });
    // The Hub keeps Tailscale's answer for up to 30 s (TAILSCALE_STATUS_TTL_MS), so the wait allows twice that.
    await eventually(
      async () => {
        const n = (await ready.hub.api<{ localNode: { nodeFqdn: string | null; tailscaleConnected: boolean } }>('GET', '/api/inference/pool/status')).json
          .localNode;
        return n.nodeFqdn !== null && !n.tailscaleConnected;
      },
      'hub-x to read Tailscale as stopped',
      60_000,
    );
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, ready.hub);
    const firstRun = page.getByTestId('first-run');
    await firstRun.getByText('Not connected', { exact: true }).waitFor();
    await firstRun.getByRole('button', { name: 'Finish setup' }).click();
    await page.getByRole('heading', { name: 'Models in the pool' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Pool your Hubs' }).count(), 0, 'pooling needs Tailscale connected');

    await gotoPool(page);
    await page.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const tailscale = page.getByRole('dialog').getByTestId('check').filter({ hasText: 'Tailscale connected with a tailnet name' });
    await tailscale.getByText('Needs action').waitFor();
    await tailscale.getByText(/Tailscale is not connected/).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
