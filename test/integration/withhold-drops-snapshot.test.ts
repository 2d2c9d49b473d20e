/**
 * With a snapshot TTL set, the proxy's own withhold of a model is not left to wait out the TTL
 * (spec, "Placement reads a snapshot, not a live probe"): the 5xx that withholds the model drops
 * that engine's snapshot, so the next request probes the engine again rather than reading an
 * answer from before the failures. The unit test of the snapshot (health-snapshot.test.ts) shows
 * drop() re-probes; this shows the Hub calls it when it withholds.
 *
 * The front holds every health probe from before the failures on, so a probe the withhold caused
 * is still waiting there when the test looks, whatever else read the snapshot meanwhile.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { startEngineFront, type EngineFront } from '../helpers/engine-front.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const SERVES = 'qwen3:8b';
const FAILS = 'big:70b';
/** Far longer than the test: every snapshot read inside it is fresh unless something dropped it. */
const TTL_MS = 300_000;

async function chat(hub: HubProcess, model: string): Promise<number> {
  const res = await request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.body.text();
  return res.statusCode;
}

describe('a withhold the proxy records, with a snapshot TTL set', () => {
  let ollama: SimEngine;
  let front: EngineFront;
  let hub: HubProcess;

  before(async () => {
    ollama = await startSimEngine({ dialect: 'ollama', models: [SERVES, FAILS], timeScale: 0.01 });
    front = await startEngineFront(ollama.url);
    hub = await startHubProcess({ env: { OLLAMA_URL: front.url } });
    await hub.api('PATCH', '/api/inference/pool/settings', { poolProbeSnapshotTtlMs: TTL_MS });
  });
  after(async () => {
    front.releaseProbes();
    await hub.stop();
    await front.close();
    await ollama.close();
  });

  it("drops the engine's snapshot: the next request probes the engine again inside the TTL", async () => {
    assert.equal(await chat(hub, SERVES), 200, 'the first request fills the snapshot');
    front.holdProbes();
    await ollama.setFault({ mode: 'error', status: 500, body: '{"error":"model failed to load"}', model: FAILS, count: 2 });

    assert.equal(await chat(hub, FAILS), 502);
    assert.equal(front.probesHeld, 0, 'one failure withholds nothing, and a fresh snapshot is read without a probe');
    assert.equal(await chat(hub, FAILS), 502);
    const { json } = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
    assert.ok(
      json.withheld.unservable.some((w) => w.key.endsWith(`|${FAILS}`)),
      'the second failure within five minutes withholds the model',
    );

    // Held, the re-probe cannot land, so this request reads the engine as unanswered; what it
    // answers is not the point. That a probe was asked for inside the TTL is.
    await chat(hub, SERVES);
    assert.ok(front.probesHeld >= 1, 'the engine was probed again although its snapshot was younger than the TTL');
  });
});
