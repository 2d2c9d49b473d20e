/**
 * What Approve says, in real Chromium against a real Hub on loopback: the setup guide's Approve
 * step and Pending requests on the Hub Pool page word each outcome alike, since one function
 * words it for both (they had drifted apart). Four peers of this build (fakes in this process)
 * ask to join; two answer the Hub's call back, two sit at a port where every connection is
 * refused, so approving them leaves them half paired. One of each is approved in the guide and
 * one in Pending requests, and the sentences are compared with the peer's name taken out.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator } from 'playwright-core';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { refusedUrl } from '../helpers/refused-port.js';
import { startTogether } from '../helpers/start-together.js';
import { FakePeer, fqdn, reservePorts, startNamedHub, type HubProcess } from '../integration/pairing-fixtures.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

const HUB = fqdn('hub-a');

describe('dashboard: what Approve says, in the setup guide and in Pending requests alike', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  /** Answer the call back: approved, they are paired on both sides. */
  const took = [new FakePeer('took-guide'), new FakePeer('took-page')] as const;
  /** Never reached by the call back: approved, they are half paired. */
  const lost = [new FakePeer('lost-guide'), new FakePeer('lost-page')] as const;
  let hub: HubProcess;
  let browser: Browser;

  before(async () => {
    await Promise.all(took.map((p) => p.start()));
    const [ports, nowhere] = await Promise.all([reservePorts(['a']), refusedUrl()]);
    const origins = Object.fromEntries([...took.map((p) => [p.name, p.origin]), ...lost.map((p) => [p.name, nowhere])]);
    [hub, browser] = await startTogether([startNamedHub({ name: HUB, port: ports.a, origins }), launchBrowser()]);
    for (const p of [...took, ...lost]) assert.equal((await p.requestPairing(hub)).status, 200);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop(), ...took.map((p) => p.close())]);
  });

  /** The words `at` shows once they name `peer`, with its name put back as <peer>. */
  const wordsFor = async (at: Locator, peer: FakePeer): Promise<string> => {
    await at.filter({ hasText: `Approved ${peer.name}` }).waitFor();
    return ((await at.textContent()) ?? '').replaceAll(peer.name, '<peer>');
  };

  it('a confirmed approval and a half-paired one are each said in the same words in both places', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, hub);
    await page.getByRole('button', { name: 'Review requests' }).click();
    const guide = page.getByRole('dialog');
    await guide.getByRole('button', { name: `Approve ${took[0].name}` }).click();
    const guideTook = await wordsFor(guide.getByTestId('guide-approve-said'), took[0]);
    await guide.getByRole('button', { name: `Approve ${lost[0].name}` }).click();
    const guideLost = await wordsFor(guide.getByTestId('guide-approve-refused'), lost[0]);
    // The half-paired Hub's card under Connected Hubs says the same.
    const card = guide.locator(`[data-testid="guide-connected"][data-peer="${lost[0].name}"]`);
    assert.equal(await wordsFor(card.getByTestId('guide-problem'), lost[0]), guideLost);
    await guide.getByRole('button', { name: 'Done' }).click();

    await gotoPool(page);
    const pending = page.locator('section[aria-labelledby="pending"]');
    await pending.getByRole('button', { name: `Approve ${took[1].name}` }).click();
    const pageTook = await wordsFor(page.getByTestId('pending-said'), took[1]);
    await pending.getByRole('button', { name: `Approve ${lost[1].name}` }).click();
    const pageLost = await wordsFor(page.getByTestId('pending-said'), lost[1]);

    assert.equal(guideTook, 'Approved <peer>. Both Hubs list each other as paired.');
    assert.equal(pageTook, guideTook, 'a confirmed approval');
    assert.match(guideLost, /^Approved <peer> here, but the call back to <peer> failed \(.+\), so most likely it never received the approval/);
    assert.match(guideLost, /half paired, and waiting will not mend it/);
    assert.match(guideLost, new RegExp(`cihub pool unpair ${HUB.replaceAll('.', '\\.')} on <peer>`), 'the command names this Hub');
    // Approved here, so not led by "Not approved", as a refused Approve is.
    assert.equal(pageLost, guideLost, 'a half-paired approval');
    await context.close();
  });
});
