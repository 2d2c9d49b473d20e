/**
 * The Hub Pool page's Context caps section, in real Chromium against two paired Hubs: this
 * node's cap and ceiling and each peer's, as its capabilities advertise them, with "none" (a node
 * that named no limit, which placement reads as taking any size) never drawn as "not known" (a
 * peer whose first health check has not answered), nor the other way round; and the two warnings
 * `cihub pool status` prints beneath its Context caps block, worded from the findings the Hub
 * decides (status's contextCaps).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { contextCapFindings } from '../../src/status/context-caps.js';
import type { PeerView } from '../../src/peers/peer-view.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

/**
 * Serves the page A's status with each peer rewritten, and the context-cap findings A's own rule
 * gives for the rewritten peers (the dashboard only words them).
 */
async function rewritePeers(page: Page, rewrite: (peer: PeerView) => PeerView): Promise<void> {
  await page.route(`**${POOL_API}/status*`, async (route) => {
    const answer = await route.fetch();
    const status = (await answer.json()) as PoolStatus;
    const peers = status.peers.map(rewrite);
    await route.fulfill({ response: answer, json: { ...status, peers, contextCaps: contextCapFindings(status.localNode.maxNumCtx, peers) } });
  });
}

describe('dashboard: Context caps', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 4 }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await Promise.all([
      startPool({
        hubs: {
          // A names no cap and no ceiling; B names both, and A reads them from its capabilities.
          a: { ollama: { models: ['m-a:1b'] } },
          b: { ollama: { models: ['m-b:1b'] }, settings: { inferenceMaxNumCtx: 16_384, poolMaxPromptTokens: 6_000 } },
        },
        pairs: [['a', 'b']],
      }),
      launchBrowser(),
    ]);
    const b = (await pool.a.status()).peers.find((p) => p.nodeFqdn === pool.b.name);
    assert.equal(b?.maxNumCtx, 16_384);
    assert.equal(b?.maxPromptTokens, 6_000);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it("shows this node's cap and ceiling and each peer's, none apart from a number", async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    const table = page.getByTestId('context-caps');
    const here = table.locator('tr[data-node="local"]');
    await here.getByText(`This Hub (${pool.a.name})`).waitFor();
    assert.deepEqual(await here.locator('td').allTextContents(), [`This Hub (${pool.a.name})`, 'none', 'none']);
    const peer = table.locator(`tr[data-node="${pool.b.name}"]`);
    assert.deepEqual(await peer.locator('td').allTextContents(), [pool.b.name, '16,384 tokens', '6,000 tokens']);
    const section = page.locator('section[aria-labelledby="context-caps"]');
    assert.equal(await section.getByText(/not reported/).count(), 0, 'caps are reported, and the section does not say otherwise');
    await context.close();
  });

  it('a peer whose first health check has not answered reads "not known", never "none"', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    // B as A lists a peer just approved, before its first snapshot: no inventory, no limits read.
    await rewritePeers(page, (p) => ({ ...p, backends: null, maxNumCtx: null, maxPromptTokens: null }));
    await gotoPool(page);
    const peer = page.getByTestId('context-caps').locator(`tr[data-node="${pool.b.name}"]`);
    await peer.waitFor();
    assert.deepEqual(await peer.locator('td').allTextContents(), [pool.b.name, 'not known', 'not known']);
    assert.equal(await page.getByTestId('context-cap-warning').count(), 0, 'a node nothing is known of is neither capped nor uncapped');
    await context.close();
  });

  it('marks an unreachable peer as not counted, and does not warn about it', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    // B as A lists it once its health checks stop answering: still paired, its last caps kept.
    await rewritePeers(page, (p) => ({ ...p, status: 'unreachable' }));
    await gotoPool(page);
    const peer = page.getByTestId('context-caps').locator(`tr[data-node="${pool.b.name}"]`);
    await peer.waitFor();
    assert.deepEqual(await peer.locator('td').allTextContents(), [
      `${pool.b.name} (unreachable: not counted in the warnings)`,
      '16,384 tokens',
      '6,000 tokens',
    ]);
    assert.equal(await page.getByTestId('context-cap-warning').count(), 0, 'only this Hub is counted, and it is the only node, so nothing differs');
    await context.close();
  });

  it('warns that this Hub names no cap while its peer does, with the fix', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    const warnings = page.getByTestId('context-cap-warning');
    await warnings.first().waitFor();
    assert.deepEqual(await warnings.allTextContents(), [
      `this Hub (${pool.a.name}) names no cap while others do: placement and handouts read that as taking any window, so the largest windows go there. Cap it at its OLLAMA_CONTEXT_LENGTH (cihub pool context-cap N on that Hub).`,
    ]);
    await context.close();
  });

  it('warns that the caps differ once both nodes are capped, and no longer that one is uncapped', async () => {
    await pool.a.patchSettings({ inferenceMaxNumCtx: 8_192 });
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    await page.getByTestId('context-caps').locator('tr[data-node="local"]').getByText('8,192 tokens').waitFor();
    assert.deepEqual(await page.getByTestId('context-cap-warning').allTextContents(), [
      'The caps differ (8,192, 16,384 tokens): a node capped low stops taking requests for larger windows while passing every health check. Check that this is meant.',
    ]);
    await context.close();
  });
});
