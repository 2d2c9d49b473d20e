/**
 * A missed first-byte deadline as throughput evidence (spec, "Throughput-aware placement", "What is
 * measured"), through a real Hub whose simulated Ollama hangs before its headers. A streamed turn
 * that runs out of its budget is recorded as "at least this slow": tokens / budget, flagged as a
 * missed deadline in GET /status and in `cihub pool status`. A non-streamed turn that runs out
 * gives nothing, since its budget covered the whole generation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';
import { localBands, settledRow } from '../helpers/lone-hub-reads.js';

const MODEL = 'qwen3:8b';
/** The budget every turn here gets: the floor, since the prefill rate below sizes none larger. */
const BUDGET_MS = scaled(2_000);
/** About 8,000 tokens (4 characters a token): the 4,096 band. */
const PROMPT = 'word '.repeat(6400);

async function chat(hub: HubProcess, stream: boolean): Promise<{ id: string; status: number; body: string }> {
  const res = await request(`${hub.pool}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: PROMPT }] }),
  });
  const body = await res.body.text();
  return { id: String(res.headers['x-hub-pool-request-id']), status: res.statusCode, body };
}

describe('a turn that runs out of its first-byte budget', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({
      env: { OLLAMA_URL: engine.url, HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(BUDGET_MS), HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC: '1000000' },
    });
    await engine.setFault({ mode: 'hang', model: MODEL });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('non-streamed, gives no reading', async () => {
    const res = await chat(hub, false);
    assert.notEqual(res.status, 200, res.body);
    const row = await settledRow(hub, res.id);
    assert.match(row.attempts[0]?.reason ?? '', /^No response headers within/);
    assert.deepEqual(await localBands(hub, MODEL), []);
  });

  it('streamed, is recorded as at least this slow, and status and the CLI say it missed', async () => {
    const res = await chat(hub, true);
    assert.notEqual(res.status, 200, res.body);
    const row = await settledRow(hub, res.id);
    assert.match(row.attempts[0]?.reason ?? '', /^No response headers within/);
    const bands = await localBands(hub, MODEL);
    assert.equal(bands.length, 1, JSON.stringify(bands));
    const band = bands[0]!;
    assert.equal(band.fromTokens, 4096);
    assert.equal(band.deadline, true);
    assert.ok(Math.abs(band.tokensPerSec - (band.promptTokens / BUDGET_MS) * 1000) < 0.01, JSON.stringify(band));

    const cli = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /local ollama qwen3:8b: 4096\+: ≤\d+ tok\/s \(missed its deadline\)/);
  });
});
