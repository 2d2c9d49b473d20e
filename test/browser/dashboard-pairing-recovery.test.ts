/**
 * What the dashboard does with a PIN once it is typed or spent, and what it says when pairing
 * needs an operator on the other Hub too, in real Chromium against two real Hubs on loopback.
 * Hub A has a fake `tailscale` on PATH whose peer map names hub-b, so its Discoverable devices
 * list B; B is named by HUB_NODE_FQDN. Requests from hub-e, hub-f and hub-g come from fake peers
 * in the test process, and B dials those names at a port where nothing listens, so its approval's
 * callback and its rejections and unpairings never reach them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import type { Browser, Locator } from 'playwright-core';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { fakeTailscale, runningStatus, type FakeTailscale } from '../helpers/fake-tailscale.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { FakePeer, fqdn, hubEnv, peerNamed, POOL, reservePorts, startNamedHub, status } from '../integration/pairing-fixtures.js';
import { gotoPool, launchBrowser, openPage, screenshot, signInByLink, type WatchedPage } from './browser.js';
import { refusedPort } from '../helpers/refused-port.js';
import { startTogether } from '../helpers/start-together.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');

describe('dashboard: a typed or spent PIN, and pairing that needs the other Hub too', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 8 }, () => {
  let hubA: HubProcess;
  let hubB: HubProcess;
  let fakeA: FakeTailscale;
  let browser: Browser;
  let pageA: WatchedPage;
  let pageB: WatchedPage;
  const at = (port: number) => `http://127.0.0.1:${port}`;

  before(async () => {
    const ports = { ...(await reservePorts(['a', 'b'])), dead: await refusedPort() };
    const origins = {
      [A]: at(ports.a),
      [B]: at(ports.b),
      [fqdn('hub-e')]: at(ports.dead),
      [fqdn('hub-f')]: at(ports.dead),
      [fqdn('hub-g')]: at(ports.dead),
      [fqdn('hub-h')]: at(ports.dead),
    };
    fakeA = fakeTailscale({ status: runningStatus('hub-a', [{ host: 'hub-b' }]), serve: {}, operatorUser: userInfo().username });
    const envA = hubEnv(A, origins, { PATH: fakeA.path });
    delete envA.HUB_NODE_FQDN;
    delete envA.HUB_TAILNET_SUFFIX;
    [hubA, hubB, browser] = await startTogether([
      startHubProcess({ port: ports.a, env: envA }),
      startNamedHub({ name: B, port: ports.b, origins }),
      launchBrowser(),
    ]);
    // A is on its (fake) tailnet and published by Serve, so every check is ready and its guide opens at Find.
    await eventually(() => fakeA.state().serve?.Web !== undefined, 'hub-a to publish itself with Serve');
    [pageA, pageB] = await Promise.all([openPage(browser), openPage(browser)]);
    await Promise.all([signInByLink(pageA.page, hubA), signInByLink(pageB.page, hubB)]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hubA?.stop(), hubB?.stop()]);
  });

  const rejectOnB = async (name: string) => {
    const row = await peerNamed(hubB, name);
    assert.ok(row, `B holds a row for ${name}`);
    assert.equal((await hubB.api('POST', `${POOL}/peers/${row.id}/reject`)).status, 200);
  };
  const mintOnB = async (): Promise<string> => {
    const res = await hubB.api<{ pin: string }>('POST', `${POOL}/pairing-pin`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json.pin;
  };

  it('a PIN spent by a request stops showing on the Hub that made it: no countdown and no Cancel PIN once status says it is used', async () => {
    const b = pageB.page;
    await gotoPool(b);
    await b.getByRole('button', { name: 'Generate PIN' }).click();
    const pin = (await b.getByTestId('pin-digits').textContent())!.trim();
    await b.getByText(/Expires in \d+:\d\d/).waitFor();
    const e = new FakePeer('hub-e');
    assert.equal((await e.requestPairing(hubB, pin)).status, 200);
    assert.equal((await status(hubB)).pairingPin.active, false, 'the request spent the PIN');
    // The page reads status every 15 s.
    const block = b.locator('section[aria-labelledby="pairing-pin"]');
    await block.getByText('No PIN is active.').waitFor();
    assert.equal(await block.getByTestId('pin-digits').count(), 0);
    assert.equal(await block.getByRole('button', { name: 'Cancel PIN' }).count(), 0);
    await rejectOnB(e.name);
  });

  it('Pair under Discoverable devices sends the PIN typed under "PIN from the other Hub": the other Hub gets the key and its PIN is spent', async () => {
    const b = pageB.page;
    const a = pageA.page;
    await gotoPool(b);
    await b.getByRole('button', { name: 'Generate PIN' }).click();
    const pin = (await b.getByTestId('pin-digits').textContent())!.trim();

    await gotoPool(a);
    const found = a.locator('section[aria-labelledby="discoverable"]');
    await found.getByRole('button', { name: 'Pair' }).waitFor();
    await a.getByLabel('PIN from the other Hub (optional)').fill(pin);
    await found.getByRole('button', { name: 'Pair' }).click();
    // Either outcome, so a request that was not sent fails here with the Hub's reason.
    const outcome = a.locator('.notice').filter({ hasText: /^(Pairing request sent to|Not sent\.)/ });
    await outcome.waitFor();
    assert.equal(await outcome.textContent(), `Pairing request sent to ${B} with the PIN.`);
    const onB = await peerNamed(hubB, A);
    assert.equal(onB?.pinVerified, true, 'the request carried the PIN');
    assert.notEqual(onB?.fingerprint, null, "B pinned A's key");
    assert.equal((await status(hubB)).pairingPin.active, false, "B's PIN is spent");
    assert.equal(await a.getByLabel('PIN from the other Hub (optional)').inputValue(), '', 'a spent PIN is not kept for the next request');
    await rejectOnB(A);
    await eventually(async () => (await peerNamed(hubA, B)) === null, "A's request to be gone after B rejected it");
    await found.getByRole('button', { name: 'Rescan' }).click();
    await found.getByRole('button', { name: 'Pair' }).waitFor();
    await a.getByLabel('PIN from the other Hub (optional)').fill('12345');
    assert.equal(await found.getByRole('button', { name: 'Pair' }).isDisabled(), true, 'five digits are refused, as the Pair form refuses them');
    await a.getByLabel('PIN from the other Hub (optional)').fill('');
  });

  it('Pair again after a rejection does not resend the spent PIN, and a request that could not be sent is shown with the Hub’s reason and Retry', async () => {
    const a = pageA.page;
    await eventually(async () => (await peerNamed(hubA, B)) === null, "A's request to be gone after B rejected it");
    await gotoPool(a);
    await a.getByRole('button', { name: 'Set up Hub Pool' }).click();
    const guide = a.getByRole('dialog');
    await guide.getByLabel('Add a Hub by its tailnet name').fill(B);
    await guide.getByRole('button', { name: 'Add', exact: true }).click();
    await guide.getByText('Have a PIN?').click();
    await guide.getByLabel('PIN from the other Hub').fill(await mintOnB());
    await guide.getByRole('button', { name: 'Send 1 request' }).click();
    await guide.getByTestId('connect-result').filter({ hasText: B }).getByText('Request sent').waitFor();
    await guide.getByRole('button', { name: 'Continue' }).click();
    await guide.getByTestId('guide-waiting').filter({ hasText: B }).waitFor();
    assert.equal((await peerNamed(hubB, A))?.pinVerified, true);

    await rejectOnB(A);
    const gone = guide.getByTestId('guide-gone').filter({ hasText: B });
    await gone.getByRole('button', { name: 'Pair again' }).click();
    await guide.getByTestId('guide-waiting').filter({ hasText: B }).waitFor();
    assert.equal((await peerNamed(hubB, A))?.pinVerified, false, 'sent again without the PIN the first request used up');

    // Refused this time: B has pooling switched off.
    await rejectOnB(A);
    assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolEnabled: false })).status, 200);
    await gone.getByRole('button', { name: 'Pair again' }).click();
    const notSent = guide.getByTestId('guide-not-sent').filter({ hasText: B });
    await notSent.getByText(`The request to ${B} was not sent.`).waitFor();
    await notSent.getByText(/The Hub said: \S/).waitFor();
    await screenshot(a, 'guide-pair-again-not-sent-1440');
    assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolEnabled: true })).status, 200);
    await notSent.getByRole('button', { name: 'Retry' }).click();
    await guide.getByTestId('guide-waiting').filter({ hasText: B }).waitFor();
    await notSent.waitFor({ state: 'detached' });
    await guide.getByRole('button', { name: 'Close the setup guide' }).click();
    await rejectOnB(A);
  });

  const reviewOnB = async (): Promise<Locator> => {
    const b = pageB.page;
    await b.goto(`${hubB.url}/#/`);
    await b.getByRole('button', { name: 'Review request' }).click();
    return b.getByRole('dialog');
  };

  it("a half-paired Hub's pairing problem and its fix show on its Paired Hubs row and in a guide opened later", async () => {
    const b = pageB.page;
    const f = new FakePeer('hub-f');
    assert.equal((await f.requestPairing(hubB)).status, 200);
    let guide = await reviewOnB();
    await guide.getByTestId('guide-incoming').filter({ hasText: f.name }).getByRole('button', { name: 'Approve' }).click();
    await guide.getByTestId('guide-connected').filter({ hasText: f.name }).waitFor();
    await guide.getByRole('button', { name: 'Done' }).click();
    assert.equal((await peerNamed(hubB, f.name))?.pairingProblem?.kind, 'half_paired_here');

    await b.reload();
    await gotoPool(b);
    const row = b.locator(`[data-testid="paired-hub"][data-peer="${f.name}"]`);
    const problem = row.getByTestId('pairing-problem');
    await problem.getByText(`Half paired: ${f.name} never received this Hub’s approval`).waitFor();
    await problem.getByText(`cihub pool unpair ${f.name} here`).waitFor();
    await row.getByRole('button', { name: 'Unpair' }).waitFor();
    await screenshot(b, 'pairing-problem-row-1440');

    // A guide opened for another request, so it never saw the approval's callback fail: the problem comes from status.
    const g = new FakePeer('hub-g');
    assert.equal((await g.requestPairing(hubB)).status, 200);
    guide = await reviewOnB();
    const card = guide.getByTestId('guide-connected').filter({ hasText: f.name });
    await card.getByTestId('guide-problem').getByText(`Half paired: ${f.name} never received this Hub’s approval`).waitFor();
    await card.getByRole('button', { name: 'Unpair' }).waitFor();
    await guide.getByRole('button', { name: 'Done' }).click();
    await rejectOnB(g.name);
  });

  it('Reject and Unpair say when the other Hub was not told; Unpair, that it may still list this Hub, and how to remove it there if it does', async () => {
    const b = pageB.page;
    const f = fqdn('hub-f');
    const h = new FakePeer('hub-h');
    assert.equal((await h.requestPairing(hubB)).status, 200);
    const guide = await reviewOnB();
    await guide.getByTestId('guide-incoming').filter({ hasText: h.name }).getByRole('button', { name: 'Reject' }).click();
    await guide.getByText(`${h.name} could not be told`).waitFor();
    await guide.getByRole('button', { name: 'Done' }).click();
    assert.equal(await peerNamed(hubB, h.name), null);

    await gotoPool(b);
    b.once('dialog', (d) => void d.accept());
    await b.locator(`[data-testid="paired-hub"][data-peer="${f}"]`).getByRole('button', { name: 'Unpair' }).click();
    const said = b.getByRole('status').filter({ hasText: `Unpaired ${f}` });
    await said.getByText(`${f} could not be told`).waitFor();
    // Not told is not known to still list it: the notice may have been lost after it acted, or it may be gone.
    await said.getByText(`so it may still list this Hub. If it does, remove this Hub there too`).waitFor();
    await said.getByText(`cihub pool unpair ${B} on ${f}; if not, nothing is left to remove.`).waitFor();
    assert.equal(await said.getByText('so it still lists this Hub').count(), 0, 'not said as a fact');
    for (const p of [pageA, pageB])
      assert.deepEqual(
        p.errors.filter((e) => !/Failed to load resource: .* (400|409|502|503)/.test(e)),
        [],
        'no console errors beyond the refusals provoked here',
      );
  });
});
