/**
 * The routing log lives in memory only (spec, "Known limitations (v1)"): a restart empties it,
 * and the summary's bootId changes so that a poller paging the log can tell the rows it held
 * belong to a log that no longer exists, rather than reading the empty page as "nothing routed".
 * Nothing is written to the data dir for it, so the same data dir brings nothing back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'qwen3:8b';

async function page(hub: HubProcess): Promise<RoutingLogPage> {
  const { status, json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
  assert.equal(status, 200);
  return json;
}

describe('the routing log across a restart', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('is empty after the Hub restarts on the same data dir, under a new bootId', async () => {
    const res = await request(`${hub.pool}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.body.text();
    assert.equal(res.statusCode, 200);
    const before = await page(hub);
    assert.equal(before.entries.length, 1, 'the request was logged');

    assert.equal(await hub.stop(), 0);
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url }, dataDir: hub.dataDir });
    const after = await page(hub);
    assert.deepEqual(after.entries, []);
    assert.notEqual(after.summary.bootId, before.summary.bootId);
  });
});
