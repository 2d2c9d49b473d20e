/**
 * The queue in a Paired Hubs row, in real Chromium against two paired Hubs. Status gives a peer a
 * queue figure only while placement may send it work, so a row without one says why the peer is
 * not a candidate (as Resources' card does), never a bare dash that reads as "not reported".
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

describe('dashboard: the queue in a Paired Hubs row', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 4 }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;

  before(async () => {
    [pool, browser] = await Promise.all([
      startPool({ hubs: { a: { ollama: { models: ['m-a:1b'] } }, b: { ollama: { models: ['m-b:1b'] } } }, pairs: [['a', 'b']] }),
      launchBrowser(),
    ]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  /** B's row on A's Hub Pool page, once its line of figures reads as `shows`: that line, its status, its tags and what it says to do next. */
  async function rowOfB(shows: RegExp): Promise<{ figures: string; status: string; tags: string[]; next: string }> {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await gotoPool(page);
    const row = page.locator(`[data-testid="paired-hub"][data-peer="${pool.b.name}"]`);
    const line = row.getByText(shows);
    await line.waitFor();
    const seen = {
      figures: (await line.textContent()) ?? '',
      status: (await row.getByTestId('peer-status').textContent()) ?? '',
      tags: await row.locator('.tag').allTextContents(),
      next: (await row.getByTestId('peer-next').allTextContents()).join(' '),
    };
    await context.close();
    return seen;
  }
  const figuresOfB = async (shows: RegExp): Promise<string> => (await rowOfB(shows)).figures;

  it('a candidate shows the queue ranking counts for it', async () => {
    const b = (await pool.a.status()).peers.find((p) => p.nodeFqdn === pool.b.name);
    assert.notEqual(b?.queueDepth ?? null, null, 'B is a candidate');
    await figuresOfB(/^Last seen .* · queue 0 · /);
  });

  it('with sending work switched off on this Hub, the row says so in place of a queue', async () => {
    await pool.a.patchSettings({ poolOutboundEnabled: false });
    try {
      const text = await figuresOfB(/^Last seen .* · not a candidate now: sending work to peers is off on this Hub · /);
      assert.doesNotMatch(text, /—/);
    } finally {
      await pool.a.patchSettings({ poolOutboundEnabled: true });
    }
  });

  it('a peer disabled here stays Connected with a Disabled tag, and says so in place of a queue', async () => {
    const b = (await pool.a.peer(pool.b))!;
    assert.equal((await pool.a.api('POST', `${POOL_API}/peers/${b.id}/disable`)).status, 200);
    const row = await rowOfB(/^Last seen .* · not a candidate now: disabled here · /);
    assert.doesNotMatch(row.figures, /—/);
    // A still polls B and B still answers: the pairing is healthy, only this Hub's use of it is off.
    assert.deepEqual({ status: row.status, tags: row.tags }, { status: 'Connected', tags: ['Disabled'] });
    assert.equal((await pool.a.api('POST', `${POOL_API}/peers/${b.id}/enable`)).status, 200);
  });

  // Last: B stays stopped. A peer's leaving notice drops its report, which once read as a peer
  // that had never answered, beside a "Last seen" a few seconds old (cihub pool status said it left).
  it('a peer that said it was shutting down is Unreachable, and its row says it left, not that it never answered', async () => {
    await pool.b.stop('SIGTERM');
    await eventually(async () => ((await pool.a.peer(pool.b))?.leftAt ?? null) !== null, `${pool.a.name} to hear ${pool.b.name} leave`);
    const row = await rowOfB(/^Last seen .* · not a candidate now: unreachable; it said it was shutting down · /);
    assert.doesNotMatch(row.figures, /first health check/);
    assert.equal(row.status, 'Unreachable');
    assert.match(row.next, /^No action needed \(it said it was shutting down at .+\): it rejoins by itself/);
  });
});
