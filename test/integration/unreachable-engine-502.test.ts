/**
 * The 502 for a model no node offers carries the Hub's own view of each local engine (spec, "When
 * a node runs the model and the Hub cannot see the engine"). On the September 2026 fleet six of
 * fifteen nodes ran an engine their Hub container could not reach, and the bare "no pool node has
 * model X" sent operators looking at the pool instead of at the firewall. The body must name the
 * URL the Hub probed, that the probe got no engine, why, and how old that answer is, since with
 * poolProbeSnapshotTtlMs set placement reads a stored probe rather than a live one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { LocalBackendReport } from '../../src/proxy/local-backends-report.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'qwen3:8b';

interface NoCandidateBody {
  error: { code: string; localBackends: LocalBackendReport[] };
}

async function chat(hub: HubProcess): Promise<{ status: number; body: NoCandidateBody }> {
  const res = await request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.statusCode, body: (await res.body.json()) as NoCandidateBody };
}

describe('a 502 from a Hub whose Ollama refuses the container', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    // The engine holds the model but its port refuses connections: what the Hub sees when a host
    // firewall or a tailnet-only bind keeps it out.
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await engine.setFault({ mode: 'refuse' });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
    const patched = await hub.api('PATCH', '/api/inference/pool/settings', { poolProbeSnapshotTtlMs: 10_000 });
    assert.equal(patched.status, 200);
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it("names the refused URL, running: false, the error and the answer's age (the September 2026 fleet: six of fifteen nodes)", async () => {
    const first = await chat(hub);
    assert.equal(first.status, 502);
    assert.equal(first.body.error.code, 'HUB_ERR_NO_CANDIDATE');
    const seen = first.body.error.localBackends.find((b) => b.url === engine.url);
    assert.ok(seen, `the report lists ${engine.url}: ${JSON.stringify(first.body)}`);
    assert.equal(seen.running, false);
    assert.equal(typeof seen.error, 'string');
    assert.notEqual(seen.error, '');
    assert.equal(typeof seen.probedMsAgo, 'number');

    // The operator fixes the engine's reach. Within the snapshot's TTL the Hub still reads the
    // probe from before the fix, and the 502 says so by its age rather than by looking live.
    await engine.restore();
    const second = await chat(hub);
    assert.equal(second.status, 502, 'placement read the stored probe, not a live one');
    const again = second.body.error.localBackends.find((b) => b.url === engine.url);
    assert.ok(again, `the report lists ${engine.url}: ${JSON.stringify(second.body)}`);
    assert.equal(again.running, false);
    assert.equal(again.error, seen.error, 'the same probe answer');
    assert.equal(typeof again.probedMsAgo, 'number');
    assert.ok(again.probedMsAgo! >= seen.probedMsAgo!, `the same probe, read later: ${again.probedMsAgo} ms after ${seen.probedMsAgo} ms`);
  });
});
