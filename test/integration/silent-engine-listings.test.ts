/**
 * Issue 10 audit: the listings (GET /api/tags and /v1/models under the pool prefix) read the
 * engines' health snapshot and never live-probe an engine. Until this, at the default
 * poolProbeSnapshotTtlMs of 0, every listing on a node whose vLLM port was held silently (a
 * firewall dropping the container's packets) waited the probe's whole 5 s transport timeout
 * before it answered, for an engine that was never going to be listed.
 *
 * Waits on events only: the listing must come back while a probe of the silent engine (one a
 * placement started) is still pending, i.e. while the connection it opened is still open.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startSilentPort, type SilentPort } from '../helpers/hostile-upstream.js';
import { scaled } from '../helpers/time-scale.js';

const MODEL = 'qwen3:8b';

async function get(hub: HubProcess, path: string): Promise<{ status: number; text: string }> {
  const res = await request(`${hub.pool}${path}`, { headersTimeout: scaled(30_000), bodyTimeout: scaled(30_000) });
  return { status: res.statusCode, text: await res.body.text() };
}

/**
 * A Hub whose Ollama answers and whose vLLM port holds every connection silently, started before
 * the describe's tests and stopped after them; `snapshotTtlMs`, when given, is set before any test.
 */
function useSilentBeside(snapshotTtlMs?: number): () => { hub: HubProcess; silent: SilentPort } {
  let ollama: SimEngine;
  let silent: SilentPort;
  let hub: HubProcess;
  before(async () => {
    silent = await startSilentPort();
    ollama = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url, VLLM_URL: silent.url } });
    if (snapshotTtlMs !== undefined)
      assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolProbeSnapshotTtlMs: snapshotTtlMs })).status, 200);
  });
  after(async () => {
    await hub.stop();
    await Promise.all([ollama.close(), silent.close()]);
  });
  return () => ({ hub, silent });
}

describe('listings beside an engine that holds its port silently', () => {
  // poolProbeSnapshotTtlMs stays at its default 0: placement probes every engine live.
  const started = useSilentBeside();

  it('answers /api/tags and /v1/models while a live probe of the silent engine is still pending', { timeout: scaled(60_000) }, async () => {
    const { hub, silent } = started();
    // The Hub probes its engines as it starts; let that first probe of the silent port run out,
    // so the snapshot holds an answer for it and nothing is in flight there. The event is the
    // answer in status, not the first connection to close: the vLLM's queue report is asked
    // beside the probe and gives up after 2 s, while the probe holds its connection for 5 s. A
    // chat sent at 2 s shared the start-up probe instead of starting one, the first listing spent
    // its 500 ms budget on it, and all three had to be done in the 3 s left of it (with a 3 s
    // stall before the listings, as on a loaded machine, the first one failed).
    await eventually(async () => {
      const { json } = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
      const vllm = json.localNode.backends.find((b) => b.kind === 'vllm');
      return vllm !== undefined && vllm.probedMsAgo !== null;
    }, 'the start-up probe of the silent engine to run out');

    // A chat is placed at TTL 0, so it probes every engine live: the silent one holds it, on the
    // next connection the port accepts (no queue report is asked of an engine found not running).
    const opened = silent.connections.length;
    const placed = request(`${hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false }),
      headersTimeout: scaled(30_000),
      bodyTimeout: scaled(30_000),
    }).then(async (res) => ({ status: res.statusCode, text: await res.body.text() }));
    await silent.accepted(opened + 1);
    const pending = silent.connections[opened]!;

    for (const path of ['/api/tags', '/v1/models', '/api/tags']) {
      const listing = await get(hub, path);
      assert.equal(pending.closed, false, `${path} answered only after the silent engine's probe gave up`);
      assert.equal(listing.status, 200, listing.text);
      assert.ok(listing.text.includes(MODEL), `${path} names the Ollama's model: ${listing.text}`);
    }
    assert.equal(silent.connections.slice(opened + 1).filter((c) => c.closed).length, 0, 'no listing waited out a probe of its own');

    const chat = await placed;
    assert.equal(chat.status, 200, chat.text);
  });
});

/**
 * Four of fifteen fleet nodes dropped the container's packets to their vLLM port, and every request
 * there took a flat 5.0 s to its first byte: placement waited out the probe's transport timeout
 * (spec, "Placement reads a snapshot, not a live probe"). With the snapshot on, a request that finds
 * an engine cold (never answered: here, the Hub has just started and its first probe of the silent
 * port is still out) waits at most the 500 ms placement budget, and the next one does not wait it
 * again: both are answered while that probe still holds its connection, which it does for 5 s.
 */
describe('placement beside a silent engine, with the snapshot on (the four of fifteen nodes)', () => {
  const started = useSilentBeside(10_000);

  const chat = async () => {
    const res = await request(`${started().hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false }),
      headersTimeout: scaled(30_000),
      bodyTimeout: scaled(30_000),
    });
    return { status: res.statusCode, servedBy: res.headers['x-hub-pool-backend'], text: await res.body.text() };
  };

  it(
    'answers from the engine that works while the first probe of the silent one is still out, twice, opening no probe of its own',
    { timeout: scaled(60_000) },
    async () => {
      const { silent } = started();
      await silent.accepted(1);
      const atStart = [...silent.connections];
      const stillProbing = () => atStart.some((c) => !c.closed);
      for (const which of ['first', 'second']) {
        const answer = await chat();
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.servedBy, 'ollama');
        assert.ok(stillProbing(), `the ${which} request was answered only after the silent engine's probe gave up`);
      }
      assert.equal(silent.connections.length, atStart.length, 'neither request opened a probe of its own');
    },
  );
});
