/**
 * A peer's container counts in its Paired Hubs row, in real Chromium against two paired Hubs.
 * Hub B counts the compose project `lab` of the fake Docker daemon; Hub A has no Docker socket,
 * so it sends B no counts at all. A row with no counts (none sent, or sharing switched off) reads
 * "not reported", never a zero that would show a machine nobody measured as idle.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startFakeDocker, type FakeDocker } from '../helpers/fake-docker.js';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool, type PoolHub } from '../helpers/pool-fixture.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';

describe("dashboard: a peer's container counts in its Paired Hubs row", { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 3 }, () => {
  let pool: Pool<'a' | 'b'>;
  let docker: FakeDocker;
  let browser: Browser;

  before(async () => {
    docker = await startFakeDocker();
    [pool, browser] = await Promise.all([
      startPool<'a' | 'b'>({
        hubs: {
          a: { ollama: { models: ['a:1b'] }, env: { HUB_DOCKER_SOCKET: 'off' } },
          b: { ollama: { models: ['b:1b'] }, env: { HUB_DOCKER_SOCKET: docker.socket, HUB_COMPOSE_PROJECTS: 'lab' } },
        },
        pairs: [['a', 'b']],
        settings: { poolHealthPollSeconds: 10 },
      }),
      launchBrowser(),
    ]);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
    await docker?.close();
  });

  /** The containers line of `peer`'s row on `on`'s Hub Pool page, once it reads as `shows`. */
  async function containersLine(on: PoolHub, peer: PoolHub, shows: RegExp): Promise<string> {
    const { page, context } = await openPage(browser);
    await signInByLink(page, on.process);
    await gotoPool(page);
    const line = page.locator(`[data-testid="paired-hub"][data-peer="${peer.name}"] [data-testid="peer-containers"]`).getByText(shows);
    await line.waitFor();
    const text = (await line.textContent()) ?? '';
    await context.close();
    return text;
  }

  it('a peer that shares its counts shows them', { timeout: TEST_TIMEOUT_MS }, async () => {
    await pool.a.waitForPeer(pool.b, 'with container counts', (p) => p.containers !== null, 30_000);
    const text = await containersLine(pool.a, pool.b, /^Containers: /);
    assert.equal(text, 'Containers: 2 running, 2 stopped (4 in all) · 200.0% CPU · 0.0 GiB memory');
  });

  it('a peer with no Docker socket reads "not reported", not zero containers', { timeout: TEST_TIMEOUT_MS }, async () => {
    const a = await pool.b.waitForPeer(pool.a, 'polled', (p) => p.lastSeenAt !== null, 30_000);
    assert.equal(a.containers, null, 'A sends no counts');
    const text = await containersLine(pool.b, pool.a, /^Containers/);
    assert.equal(text, 'Containers not reported');
  });

  it('a peer that switches sharing off goes back to "not reported"', { timeout: TEST_TIMEOUT_MS }, async () => {
    await pool.a.waitForPeer(pool.b, 'with container counts', (p) => p.containers !== null, 30_000);
    await pool.b.patchSettings({ poolShareContainerStats: false });
    try {
      await pool.a.waitForPeer(pool.b, 'without container counts', (p) => p.containers === null, 30_000);
      const text = await containersLine(pool.a, pool.b, /^Containers/);
      assert.equal(text, 'Containers not reported');
    } finally {
      await pool.b.patchSettings({ poolShareContainerStats: true });
    }
  });
});
