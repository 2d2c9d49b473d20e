/**
 * Resources' cards, in real Chromium against two paired Hubs whose simulated engines are told to
 * fail: a request that failed on every node it was tried on is counted on each of those nodes'
 * cards, Unplaced counts only requests no node was tried for, and a caller's hang-up is said
 * apart from the failures it is counted with; a request that failed here and a peer then served
 * is counted here as failed over, and not on the peer's card. Measured speed says which readings
 * are bounds and how old each is. A peer that is no candidate says why instead of showing a queue.
 * This Hub's card names its own hardware tier and GPU-pressure band, and a peer's card the band
 * the peer advertises, given a source the way an operator's vendor timer would give it one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { chat, POOL_API, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { launchBrowser, openPage, signInByLink, type WatchedPage } from './browser.js';
import { HOST_FILE_MAX_AGE_MS, PRESSURE_HOST_FILE } from '../../src/machine/pressure-sources.js';

/** Held by both Hubs: both engines fail it once, so A's walk runs out of candidates. */
const SHARED = 'shared:1b';
/** Held by A only: its caller hangs up while A's engine holds it. */
const A_ONLY = 'a-only:1b';
/** Held by both of A's engines and asked for by nobody: A's card names it once. */
const TWO_ENGINES = 'two-engines:1b';
const TIER_WORDS: Record<string, string> = { 'high-end': 'High-end', 'mid-range': 'Mid-range', 'cpu-only': 'CPU only', insufficient: 'Insufficient hardware' };
/** One pressure sample on B (10 s) and one health poll by A (10 s), with room for a loaded machine. */
const SAMPLE_AND_POLL_MS = 60_000;

interface Row {
  readonly model: string | null;
  readonly outcome: string;
  readonly node: string | null;
  readonly clientClosed: boolean;
  readonly attempts: readonly { readonly node: string }[];
  readonly failedOverFrom: readonly string[];
}

describe("dashboard: Resources' cards", { timeout: START_TIMEOUT_MS + TEST_TIMEOUT_MS * 6 }, () => {
  let pool: Pool<'a' | 'b'>;
  let browser: Browser;
  let watched: WatchedPage;
  const settled = async (model: string): Promise<Row> =>
    eventually(
      async () =>
        (await pool.a.api<{ entries: Row[] }>('GET', `${POOL_API}/routing-log`)).json.entries.find((r) => r.model === model && r.outcome !== 'pending'),
      `A's row for ${model} to settle`,
    );

  before(async () => {
    [pool, browser] = await Promise.all([
      startPool({
        hubs: { a: { ollama: { models: [SHARED, A_ONLY, TWO_ENGINES] }, vllm: { models: [TWO_ENGINES] } }, b: { ollama: { models: [SHARED] } } },
        pairs: [['a', 'b']],
        // Health checks as often as the Hub allows: the last case waits for one to see B paused.
        settings: { poolHealthPollSeconds: 10 },
      }),
      launchBrowser(),
    ]);
    await Promise.all([pool.a, pool.b].map((h) => h.engines.ollama!.setFault({ mode: 'error', status: 500, count: 1, model: SHARED })));
    assert.equal((await chat(pool.a, SHARED)).status, 502);
    const exhausted = await settled(SHARED);
    assert.equal(exhausted.node, null, 'a walk that ran out of candidates names no node');
    assert.deepEqual(exhausted.attempts.map((a) => a.node).sort(), [pool.b.name, 'local'].sort());

    // A's engine alone fails the next one, and B serves it: A's only trace is the failover.
    await pool.a.engines.ollama!.setFault({ mode: 'error', status: 503, count: 1, model: SHARED });
    assert.equal((await chat(pool.a, SHARED)).status, 200);
    const failedOver = await eventually(
      async () =>
        (await pool.a.api<{ entries: Row[] }>('GET', `${POOL_API}/routing-log`)).json.entries.find((r) => r.model === SHARED && r.outcome === 'served'),
      `A's row for the ${SHARED} request B served`,
    );
    assert.equal(failedOver.node, pool.b.name);
    assert.deepEqual(failedOver.failedOverFrom, ['local'], 'the walk tried this Hub first');

    const engine = pool.a.engines.ollama!;
    await engine.setFault({ mode: 'hang', count: 1, model: A_ONLY });
    const leave = new AbortController();
    const asked = request(`${pool.a.pool}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: A_ONLY, messages: [{ role: 'user', content: 'hello' }] }),
      signal: leave.signal,
    });
    await eventually(() => engine.state().hanging > 0, "A's engine to hold the request");
    leave.abort();
    await assert.rejects(asked);
    const hungUp = await settled(A_ONLY);
    assert.equal(hungUp.clientClosed, true);
    assert.equal(hungUp.node, 'local', 'a hang-up keeps the node it was waiting on');

    assert.equal((await chat(pool.a, 'nowhere:1b')).status, 502);
    assert.deepEqual((await settled('nowhere:1b')).attempts, [], 'no node holds it, so none was tried');

    watched = await openPage(browser);
    await signInByLink(watched.page, pool.a.process);
    await watched.page.getByRole('link', { name: 'Resources' }).click();
  });
  after(async () => {
    await Promise.allSettled([browser?.close(), pool?.stop()]);
  });

  it('a request every node failed counts on each node it was tried on, and Unplaced only on requests no node was tried for', async () => {
    const page = watched.page;
    const failedOn = (node: string) => page.locator(`[data-testid="resource-card"][data-node="${node}"]`).getByTestId('failed-30m');
    await failedOn(pool.b.name).getByText('1', { exact: true }).waitFor();
    await failedOn('local').getByText(/^2\b/).waitFor();
    await page.getByTestId('unplaced').getByText('1 failed in the last 30 minutes before any node was tried.', { exact: true }).waitFor();
  });

  it("lists a model two of a node's engines hold once", async () => {
    const models = watched.page.locator('[data-testid="resource-card"][data-node="local"]').getByTestId('models');
    await models.getByText(`${SHARED}, ${A_ONLY}, ${TWO_ENGINES}`, { exact: true }).waitFor();
  });

  it('"Failed 30m" says how many of its failures were the caller hanging up', async () => {
    const local = watched.page.locator('[data-testid="resource-card"][data-node="local"]');
    await local
      .getByTestId('failed-30m')
      .getByText(/^2 \(1 abandoned by the caller\)/)
      .waitFor();
  });

  it('"Failed 30m" counts a request that failed here and a peer then served as failed over, and the peer\'s card does not count it', async () => {
    const failedOn = (node: string) => watched.page.locator(`[data-testid="resource-card"][data-node="${node}"]`).getByTestId('failed-30m');
    await failedOn('local').getByText('2 (1 abandoned by the caller); 1 more failed over to another node', { exact: true }).waitFor();
    await failedOn(pool.b.name).getByText('1', { exact: true }).waitFor();
  });

  it("this Hub's card names its hardware tier in the words peers' cards use, and an unmeasured GPU-pressure band as not measured, never 0", async () => {
    const status = await eventually(async () => {
      const s = await pool.a.status();
      return s.localNode.hardware?.detected === true ? s : null;
    }, "A's hardware detection to finish");
    const { tier } = status.localNode.hardware!;
    assert.ok(tier !== null && TIER_WORDS[tier] !== undefined, `a machine without a GPU is judged on its memory, got ${tier}`);
    assert.equal(status.localNode.gpuPressure?.band, null, 'no GPU-busy source answers on this machine');
    const local = watched.page.locator('[data-testid="resource-card"][data-node="local"]');
    await local.getByText(new RegExp(`^Engines .+ · ${TIER_WORDS[tier]} · GPU pressure not measured\\b`)).waitFor();
  });

  it("a peer's card names the GPU-pressure band the peer advertises as this Hub's card does, and a band it never reported as not reported, never 0", async () => {
    const card = watched.page.locator(`[data-testid="resource-card"][data-node="${pool.b.name}"]`);
    const peerB = async () => (await pool.a.status()).peers.find((p) => p.nodeFqdn === pool.b.name);
    // No GPU-busy source answers on this machine, so B leaves the band off the wire.
    assert.equal((await peerB())?.gpuPressure, null);
    await card.getByText(/^Connected · .+ · GPU pressure not reported$/).waitFor();

    // B's idle GPU read from the host file: band 0 is a reading, said as one. The file is
    // rewritten as a vendor timer would, since one older than HOST_FILE_MAX_AGE_MS is no reading.
    const hostFile = join(pool.b.dataDir, PRESSURE_HOST_FILE);
    const write = () => writeFileSync(hostFile, JSON.stringify({ busyPercent: 0 }));
    mkdirSync(dirname(hostFile), { recursive: true });
    write();
    const timer = setInterval(write, HOST_FILE_MAX_AGE_MS / 6);
    try {
      await eventually(async () => (await peerB())?.gpuPressure === 0, 'A to hold B at band 0', SAMPLE_AND_POLL_MS);
      await card.getByText(/^Connected · .+ · GPU pressure band 0$/).waitFor();
    } finally {
      clearInterval(timer);
      rmSync(hostFile, { force: true });
    }
  });

  it('says when its last-30-minutes figures cover less than 30 minutes: the page holds only the newest 200 rows', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    // A's real log, its newest row copied to 200 over the last ten minutes, on a ring that has evicted.
    await page.route(`**${POOL_API}/routing-log*`, async (route) => {
      const answer = await route.fetch();
      const log = (await answer.json()) as { entries: Record<string, unknown>[]; summary: Record<string, unknown> };
      const newest = log.entries[0]!;
      const now = Date.now();
      log.entries = Array.from({ length: 200 }, (_, i) => {
        const at = new Date(now - i * 3_000).toISOString();
        return { ...newest, id: `copy-${i}`, timestamp: at, updatedAt: at };
      });
      log.summary = { ...log.summary, totalRecorded: 500, recorded: 200 };
      await route.fulfill({ response: answer, json: log });
    });
    await page.getByRole('link', { name: 'Resources' }).click();
    await page
      .getByTestId('window-cut')
      .getByText(/^The request figures below cover only the requests since (9|10) min ago: the newest 200 the routing log holds, not the whole 30 minutes\.$/)
      .waitFor();
    await context.close();
  });

  it('measured speed marks a reading that missed its deadline as a bound, and says how old each reading is, the decode rate included', async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    // This Hub's readings rewritten to one that missed its deadline and one that did not: a real
    // missed deadline costs the whole first-byte wait.
    await page.route(`**${POOL_API}/status*`, async (route) => {
      const answer = await route.fetch();
      const status = (await answer.json()) as { localNode: Record<string, unknown> };
      const bands = [
        { fromTokens: 4096, promptTokens: 5000, tokensPerSec: 812.4, deadline: true, ageMs: 180_000 },
        { fromTokens: 16_384, promptTokens: 20_000, tokensPerSec: 400, deadline: false, ageMs: 30_000 },
      ];
      status.localNode.throughput = {
        estimates: [{ node: 'local', backendId: 'ollama', model: SHARED, bands, decodeTokensPerSec: 42.4, decodeAgeMs: 240_000 }],
        advertised: null,
      };
      await route.fulfill({ response: answer, json: status });
    });
    await page.getByRole('link', { name: 'Resources' }).click();
    const speed = page.locator('[data-testid="resource-card"][data-node="local"]').getByTestId('measured-speed');
    await speed
      .getByText(
        `${SHARED} on ollama: ≤812 tokens/s reading prompts of 4k tokens or more (missed its deadline, so at least this slow; 3 min ago); ` +
          '400 tokens/s reading prompts of 16k tokens or more (30 s ago), timed by this Hub (writes 42 tokens/s, 4 min ago)',
        { exact: true },
      )
      .waitFor();
    await context.close();
  });

  it("a peer not polled yet has unknown models, not none; an unreachable one's are as last seen; this Hub's engine health says how old it is", async () => {
    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    const lastSeenAt = new Date(Date.now() - 5 * 60_000 - 10_000).toISOString();
    let shape: 'never polled' | 'unreachable' = 'never polled';
    /** What A's second engine (vLLM) answered last: as it really did, failing, or not yet. */
    let secondEngine: 'as it is' | 'failing' | 'not probed' = 'as it is';
    // B's real entry given what each kind of peer carries: a real one takes minutes to become either.
    await page.route(`**${POOL_API}/status*`, async (route) => {
      const answer = await route.fetch();
      const status = (await answer.json()) as { peers: Record<string, unknown>[]; localNode: { backends: Record<string, unknown>[] } };
      const second = status.localNode.backends[1]!;
      if (secondEngine === 'failing') Object.assign(second, { healthy: false });
      if (secondEngine === 'not probed') Object.assign(second, { healthy: false, probedMsAgo: null });
      const failure = { kind: 'unreachable', since: lastSeenAt, action: 'none' };
      // Neither carries a band: a peer not polled yet has sent none, and a report five minutes old is past three polls.
      for (const p of status.peers)
        if (p.nodeFqdn === pool.b.name)
          Object.assign(
            p,
            shape === 'never polled'
              ? { backends: null, hardwareTier: null, gpuPressure: null, lastSeenAt: null, queueDepth: null, acceptingWork: null, figuresCurrent: null }
              : {
                  status: 'unreachable',
                  lastSeenAt,
                  probeFailure: failure,
                  gpuPressure: null,
                  queueDepth: null,
                  consecutiveFailures: 3,
                  figuresCurrent: false,
                },
          );
      await route.fulfill({ response: answer, json: status });
    });
    await page.getByRole('link', { name: 'Resources' }).click();
    const card = page.locator(`[data-testid="resource-card"][data-node="${pool.b.name}"]`);
    await card.getByTestId('models').getByText('Unknown: not polled yet', { exact: true }).waitFor();
    await card.getByText(/ · Tier not reported yet · GPU pressure not reported yet$/).waitFor();
    shape = 'unreachable';
    await card.getByTestId('models').getByText(`${SHARED} (as last seen, 5 min ago)`, { exact: true }).waitFor({ timeout: 30_000 });
    await card.getByText(/^Unreachable · .+ \(as last seen, 5 min ago\) · GPU pressure not reported$/).waitFor();
    const local = page.locator('[data-testid="resource-card"][data-node="local"]');
    await local.getByText(/^Engines healthy \(probed \d+ s ago\) · .+ · GPU pressure .+$/).waitFor();
    // One engine healthy is not "Engines healthy", and one not probed yet is counted as neither.
    secondEngine = 'failing';
    await local.getByText(/^1 of 2 engines healthy \(probed \d+ s ago\) · .+ · GPU pressure .+$/).waitFor({ timeout: 30_000 });
    secondEngine = 'not probed';
    await local.getByText(/^1 of 2 engines healthy, 1 not probed yet \(probed \d+ s ago\) · .+ · GPU pressure .+$/).waitFor({ timeout: 30_000 });
    await context.close();
  });

  it('a peer that is no candidate now says why in place of a queue, with the tags Paired Hubs shows', async () => {
    // Paused on B (it takes no work), then switched off here; A learns of the pause on its next health check.
    await pool.b.patchSettings({ poolInboundEnabled: false });
    await pool.a.waitForPeer(pool.b, 'taking no work', (p) => p.acceptingWork === false, 30_000);
    const b = (await pool.a.peer(pool.b))!;
    assert.equal((await pool.a.api('POST', `${POOL_API}/peers/${b.id}/disable`)).status, 200);

    const { page, context } = await openPage(browser);
    await signInByLink(page, pool.a.process);
    await page.getByRole('link', { name: 'Resources' }).click();
    const card = page.locator(`[data-testid="resource-card"][data-node="${pool.b.name}"]`);
    await card.getByTestId('queue').getByText('not a candidate now: disabled here; paused, taking no work', { exact: true }).waitFor();
    assert.deepEqual(await card.locator('.tag').allTextContents(), ['Disabled', 'Paused: taking no work']);
    await context.close();
  });
});
