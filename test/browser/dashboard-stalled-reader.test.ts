/**
 * A caller the Hub closed because it stopped reading, as the dashboard words it, in real Chromium
 * against one real Hub with a simulated engine and an app on a raw socket that reads the answer's
 * head and then nothing. The row is still the caller's hang-up, but the app closed nothing: Recent
 * routing must not say it closed its connection. The dashboard words it from the row's
 * stoppedReadingMs, which a real Hub writes here, never from the reason's text.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';
import { chatThatStopsReading } from '../helpers/raw-http.js';

const MODEL = 'fast:8b';
/** The header budget, which is also how long an app may take nothing before the Hub closes it. */
const STALL_BUDGET_MS = 1_000;

describe('dashboard: an app the Hub closed for not reading', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 2 }, () => {
  let engine: SimEngine;
  let hub: HubProcess;
  let browser: Browser;
  let stalledRow: RoutingLogEntry;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: MODEL, decodeTps: 5_000, answerTokens: 1_000_000 }], timeScale: 0.01 });
    [hub, browser] = await startTogether([
      startHubProcess({ env: { OLLAMA_URL: engine.url, HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(STALL_BUDGET_MS) } }),
      launchBrowser(),
    ]);
    const socket = await chatThatStopsReading(hub, MODEL);
    try {
      stalledRow = await eventually(async () => {
        const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
        return json.entries.find((e) => e.model === MODEL && e.outcome === 'failed');
      }, 'the row to settle');
    } finally {
      socket.destroy();
    }
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hub?.stop(), engine?.close()]);
  });

  it('Recent routing says the app stopped reading and the Hub closed it, naming the node, and never that the app closed its connection', async () => {
    assert.equal(stalledRow.stoppedReadingMs, STALL_BUDGET_MS, 'the row the dashboard reads carries the stall time');
    const { page, context, errors } = await openPage(browser);
    await signInByLink(page, hub);
    await gotoPool(page);
    const row = page.getByTestId('recent-routing').locator('tbody tr').first();
    await row
      .getByText(
        `No node served this row (the app stopped reading for at least ${STALL_BUDGET_MS} ms, so the Hub closed its connection while local was working on it)`,
        {
          exact: true,
        },
      )
      .waitFor();
    await row.getByText(`failed (200): the caller stopped reading for at least ${STALL_BUDGET_MS} ms`, { exact: true }).waitFor();
    assert.equal(await page.getByText(/closed its connection while/).count(), 1, 'only the Hub closing it is said');
    assert.equal(await page.getByText(/the app closed its connection/).count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
