/**
 * Cache hits and appends on a newer Ollama, which reports prompt_eval_cached_count in its native
 * final frame beside a prompt_eval_count that counts the whole prompt (spec, "Throughput-aware
 * placement", "What is measured"). A turn the engine took from its cache gives the throughput book
 * nothing: timed against the whole prompt it would read as a node many times faster than its cold
 * reads. A turn appended to that history is a read, timed on the part the engine read. Both show
 * in GET /status and in `cihub pool status`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { localBands, settledRow } from '../helpers/lone-hub-reads.js';

const MODEL = 'qwen3:8b';
const PREFILL_TPS = 2000;
/** About 8,000 tokens of history (4 characters a token, as the engine and the Hub both count): the 4,096 band. */
const HISTORY = 'word '.repeat(6400);
/** About 4,000 new tokens: more than the 1,024 a read needs, and the 8,192 band once added to the history. */
const APPENDED = 'more '.repeat(3200);

type Message = { role: 'user' | 'assistant'; content: string };

async function chat(base: string, messages: Message[]): Promise<{ id: string; answer: string }> {
  const res = await request(`${base}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream: false, messages }),
  });
  const json = (await res.body.json()) as { message?: { content?: string } };
  assert.equal(res.statusCode, 200, JSON.stringify(json));
  return { id: String(res.headers['x-hub-pool-request-id']), answer: json.message?.content ?? '' };
}

describe('a newer Ollama that reports its cached prompt count', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  before(async () => {
    engine = await startSimEngine({
      dialect: 'ollama',
      models: [{ name: MODEL, prefillTps: PREFILL_TPS }],
      slots: 1,
      answerTokens: 8,
      reportCachedCount: true,
      timeScale: 0.01,
    });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('gives no reading for a turn it took from its cache, and reads an appended turn on the part it read', async () => {
    const history: Message[] = [{ role: 'user', content: HISTORY }];
    // Another client of the same engine read this prompt first, so the Hub's turn finds it cached.
    await chat(engine.url, history);
    const hit = await chat(hub.pool, history);
    assert.equal((await settledRow(hub, hit.id)).outcome, 'served');
    assert.deepEqual(await localBands(hub, MODEL), [], 'a cache hit is not a read: nothing is timed');

    const appended = await chat(hub.pool, [...history, { role: 'assistant', content: hit.answer }, { role: 'user', content: APPENDED }]);
    assert.equal((await settledRow(hub, appended.id)).outcome, 'served');
    const bands = await localBands(hub, MODEL);
    assert.deepEqual(
      bands.map((b) => b.fromTokens),
      [8192],
      `the appended turn is timed in the band of its whole prompt: ${JSON.stringify(bands)}`,
    );
    assert.ok(Math.abs(bands[0]!.tokensPerSec - PREFILL_TPS) < PREFILL_TPS * 0.2, `timed on the part read: ${JSON.stringify(bands)}`);

    const cli = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, new RegExp(`local ollama ${MODEL.replace('.', '\\.')}: 8192\\+: \\d+ tok/s on \\d+ tokens`));
  });
});
