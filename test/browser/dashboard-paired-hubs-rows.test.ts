/**
 * The Hub Pool page of a Hub with peers, in real Chromium against two real Hubs on loopback and
 * a peer of an older build (a fake in this process that pairs on the bearer token alone): the
 * badge before and after pairing, what each Paired Hubs row says (tier, engines, last seen, the
 * Paused and Legacy auth tags, Unpair), and What the pool can serve with the models only one node
 * holds marked and counted.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import {
  FakePeer,
  fqdn,
  pairFakeWithoutPin,
  pairHubs,
  peerNamed,
  POOL,
  reservePorts,
  startNamedHub,
  type HubProcess,
} from '../integration/pairing-fixtures.js';
import { gotoPool, launchBrowser, openPage, signInByLink } from './browser.js';
import { startTogether } from '../helpers/start-together.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');
/** The hardware tiers as the user guide names them. */
const TIER_WORDS: Record<string, string> = { 'high-end': 'High-end', 'mid-range': 'Mid-range', 'cpu-only': 'CPU only' };

describe('dashboard: Paired Hubs rows and what the pool can serve', { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 7 }, () => {
  let engines: SimEngine[] = [];
  let hubA: HubProcess;
  let hubB: HubProcess;
  let browser: Browser;
  let page: Page;
  const legacy = new FakePeer('hub-old', { legacy: true });
  const row = (name: string) => page.locator(`[data-testid="paired-hub"][data-peer="${name}"]`);

  before(async () => {
    await legacy.start();
    engines = await Promise.all([
      startSimEngine({ dialect: 'ollama', models: ['shared:1b', 'a-only:1b'], timeScale: 0.01 }),
      startSimEngine({ dialect: 'ollama', models: ['shared:1b', 'b-only:1b'], timeScale: 0.01 }),
    ]);
    const ports = await reservePorts(['a', 'b']);
    const at = (port: number) => `http://127.0.0.1:${port}`;
    [hubA, hubB, browser] = await startTogether([
      startNamedHub({
        name: A,
        port: ports.a,
        origins: { [B]: at(ports.b), [legacy.name]: legacy.origin },
        env: { OLLAMA_URL: engines[0]!.url },
      }),
      startNamedHub({ name: B, port: ports.b, origins: { [A]: at(ports.a) }, env: { OLLAMA_URL: engines[1]!.url } }),
      launchBrowser(),
    ]);
    assert.equal((await hubA.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 10 })).status, 200);
    ({ page } = await openPage(browser));
    await signInByLink(page, hubA);
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), hubA?.stop(), hubB?.stop(), legacy.close(), ...engines.map((e) => e.close())]);
  });

  it('with Hub Pool on and nothing paired, the badge says "No connected Hubs"', async () => {
    await gotoPool(page);
    await page.getByTestId('pool-badge').getByText('No connected Hubs', { exact: true }).waitFor();
    await page.locator('section[aria-labelledby="paired"]').getByText('No Hub is paired yet.').waitFor();
  });

  it("once paired: Routing; B's row names its tier, engines and when it was last seen, with Unpair; the models only one node holds are marked and counted", async () => {
    await pairHubs(hubA, A, hubB, B);
    await page.reload();
    await page.getByTestId('pool-badge').getByText('Routing', { exact: true }).waitFor();
    const b = row(B);
    await b.getByTestId('peer-status').getByText('Connected').waitFor();
    const tier = (await peerNamed(hubA, B))?.hardwareTier ?? null;
    await b
      .getByText(new RegExp(`^Last seen \\d+ s ago · queue \\d+ · ${tier === null ? 'Tier not reported' : (TIER_WORDS[tier] ?? tier)} · engines ollama$`))
      .waitFor();
    await b.getByRole('button', { name: 'Unpair' }).waitFor();

    const served = page.locator('section[aria-labelledby="pool-models-title"]');
    await served.getByText('3 models, 2 on one node only.', { exact: true }).waitFor();
    const models = await served.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent?.trim())));
    assert.deepEqual(models, [
      ['a-only:1b ⚠', 'local'],
      ['b-only:1b ⚠', B],
      ['shared:1b', `local, ${B}`],
    ]);
    assert.equal(await served.getByLabel('warning: on one node only').count(), 2);
  });

  it('a peer that takes no work is tagged Paused, and a peer paired on the older bearer token is tagged Legacy auth', async () => {
    assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolInboundEnabled: false })).status, 200);
    await pairFakeWithoutPin(hubA, legacy);
    await eventually(async () => (await peerNamed(hubA, legacy.name))?.lastSeenAt != null, `${legacy.name}'s first health check`);
    await eventually(async () => (await peerNamed(hubA, B))?.acceptingWork === false, `${A} to learn that ${B} takes no work`);
    await page.reload();
    await row(B).locator('.tag', { hasText: 'Paused: taking no work' }).waitFor();
    const old = row(legacy.name);
    await old.getByTestId('peer-status').getByText('Connected').waitFor();
    assert.deepEqual(await old.locator('.tag').allTextContents(), ['Legacy auth']);
    // Polled, and sending no tier: for good, so not "yet".
    await old.getByText(/ · Tier not reported · engines none$/).waitFor();
  });

  // The window in which a real peer is stale yet not Unreachable moves with the poll interval and
  // the probe timeout, so B's real status entry is given the fields a stale peer's carries.
  it('on Resources, a peer whose last good report is over three polls old shows the mid-load stand-in, not requests in flight', async () => {
    await page.route(`**${POOL}/status`, async (route) => {
      const real = (await (await route.fetch()).json()) as { peers: { nodeFqdn: string; snapshotStale?: boolean; queueDepth?: number | null }[] };
      for (const p of real.peers) if (p.nodeFqdn === B) Object.assign(p, { snapshotStale: true, queueDepth: 2, figuresCurrent: false });
      await route.fulfill({ json: real });
    });
    await page.getByRole('link', { name: 'Resources' }).click();
    const card = page.locator(`[data-testid="resource-card"][data-node="${B}"]`);
    await card.getByTestId('queue').getByText('2 (no recent report; counted as mid-load)', { exact: true }).waitFor();
    await page.unroute(`**${POOL}/status`);
    await gotoPool(page);
  });

  // A real peer takes three failed polls (and minutes at the Hub's shortest interval) to turn
  // Unreachable, so B's real status entry is given what an unreachable peer's carries.
  it("an unreachable peer's tier and engines are said to be as it was last seen, not as current", async () => {
    const lastSeenAt = new Date(Date.now() - 5 * 60_000 - 10_000).toISOString();
    await page.route(`**${POOL}/status`, async (route) => {
      const real = (await (await route.fetch()).json()) as { peers: { nodeFqdn: string }[] };
      const failure = { kind: 'unreachable', since: lastSeenAt, action: 'none' };
      for (const p of real.peers)
        if (p.nodeFqdn === B)
          Object.assign(p, { status: 'unreachable', lastSeenAt, probeFailure: failure, queueDepth: null, consecutiveFailures: 3, figuresCurrent: false });
      await route.fulfill({ json: real });
    });
    await page.reload();
    const b = row(B);
    await b.getByTestId('peer-status').getByText('Unreachable').waitFor();
    // B is paused by now, so it lists no engine.
    await b.getByText(/^Last seen 5 min ago · .+ · as of then: .+ · engines none$/).waitFor();
    await page.unroute(`**${POOL}/status`);
    await page.reload();
    await b.getByText(/^Last seen \d+ s ago · .+ · engines none$/).waitFor();
    assert.equal(await b.getByText(/as of then/).count(), 0, 'a peer answering now shows its figures as current');
  });

  // The Hub says no_peers whenever no paired Hub is connected and enabled here; which ones there
  // are, and why, is in its peer rows, so B's and the older peer's entries are given those states.
  it('with Hubs paired but none to send to, the badge says why (disabled here, unreachable) instead of asking for a pairing', async () => {
    await page.route(`**${POOL}/status`, async (route) => {
      const real = (await (await route.fetch()).json()) as { reason: string; routingActive: boolean; peers: { nodeFqdn: string }[] };
      Object.assign(real, { reason: 'no_peers', routingActive: false });
      for (const p of real.peers) Object.assign(p, p.nodeFqdn === B ? { enabled: false } : { status: 'unreachable', consecutiveFailures: 3 });
      await route.fulfill({ json: real });
    });
    await page.reload();
    const badge = page.getByTestId('pool-badge');
    await badge.getByText('No connected Hubs', { exact: true }).waitFor();
    await page
      .getByText(
        'Hub Pool is on, with no Hub to send work to: 1 Hub disabled here (Enable under Paired Hubs sends it work again); 1 Hub unreachable (each rejoins by itself on its next good health check).',
        { exact: true },
      )
      .first()
      .waitFor();
    assert.equal(await page.getByText('pair a Hub to start routing').count(), 0);
    // Home's card agrees with the badge: the disabled Hub is not counted as connected.
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByTestId('home-hubs-count').getByText('0 Hubs connected, 1 disabled here, 1 unreachable', { exact: true }).waitFor();
    await gotoPool(page);
    await page.unroute(`**${POOL}/status`);
    await page.reload();
  });

  // Last: the older peer stays gone. Its row said nothing between its first failed health check
  // and the third, while cihub pool status said the last probe failed.
  it('a peer whose last health check failed, not yet three in a row, stays Connected and says the check failed', async () => {
    await legacy.close();
    await eventually(async () => ((await peerNamed(hubA, legacy.name))?.consecutiveFailures ?? 0) >= 1, `a failed health check of ${legacy.name}`);
    // No further check for five minutes, so the row cannot turn Unreachable while it is read.
    assert.equal((await hubA.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 300 })).status, 200);
    const seen = await peerNamed(hubA, legacy.name);
    assert.equal(seen?.status, 'connected', 'fewer than three failures in a row');
    await page.reload();
    const old = row(legacy.name);
    await old.getByTestId('peer-status').getByText('Connected').waitFor();
    const failed = seen?.consecutiveFailures === 1 ? 'Its last health check' : `Its last ${seen?.consecutiveFailures} health checks`;
    await old
      .getByTestId('peer-next')
      .getByText(new RegExp(`^${failed} failed \\(no usable answer since .+\\); three in a row mark it Unreachable\\.$`))
      .waitFor();
  });
});
