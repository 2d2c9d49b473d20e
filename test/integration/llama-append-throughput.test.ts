/**
 * A turn appended to a cached history on llama.cpp, streamed the way the OpenAI SDKs stream by
 * default (no stream_options, so no usage chunk): the engine's timings are all the Hub has, and
 * their prompt_n counts only the part read. The turn is still a read (spec, "Throughput-aware
 * placement", "What is measured"), so the throughput book gets a reading for it, timed on the
 * part read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { localBands, settledRow } from '../helpers/lone-hub-reads.js';

const MODEL = 'qwen3:8b';
const PREFILL_TPS = 2000;
/** About 5,000 tokens of history (4 characters a token, as the engine and the Hub both count): the 4,096 band. */
const HISTORY = 'word '.repeat(4000);
/** About 4,000 new tokens: fewer than the cached history, so a read taken as prompt_n − cache_n went negative. */
const APPENDED = 'more '.repeat(3200);

type Message = { role: 'user' | 'assistant'; content: string };

async function streamTurn(client: OpenAI, messages: Message[]): Promise<{ id: string; answer: string }> {
  const { data, response } = await client.chat.completions.create({ model: MODEL, stream: true, messages }).withResponse();
  let answer = '';
  for await (const chunk of data) answer += chunk.choices[0]?.delta?.content ?? '';
  return { id: String(response.headers.get('x-hub-pool-request-id')), answer };
}

describe('a llama.cpp turn appended to a cached history, streamed without usage', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  before(async () => {
    engine = await startSimEngine({ dialect: 'llamacpp', models: [{ name: MODEL, prefillTps: PREFILL_TPS }], slots: 1, answerTokens: 8, timeScale: 0.01 });
    hub = await startHubProcess({ env: { LLAMACPP_URL: engine.url } });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('is timed on the part it read, not dropped as a negative read', async () => {
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'x', maxRetries: 0 });
    const history: Message[] = [{ role: 'user', content: HISTORY }];
    const first = await streamTurn(client, history);
    assert.equal((await settledRow(hub, first.id)).outcome, 'served');
    assert.deepEqual(
      (await localBands(hub, MODEL)).map((b) => b.fromTokens),
      [4096],
      'the cold first turn is timed in the 4,096 band',
    );

    const second = await streamTurn(client, [...history, { role: 'assistant', content: first.answer }, { role: 'user', content: APPENDED }]);
    assert.equal((await settledRow(hub, second.id)).outcome, 'served');
    const bands = await localBands(hub, MODEL);
    const appended = bands.find((b) => b.fromTokens === 8192);
    assert.ok(appended !== undefined, `the appended turn is timed in the 8,192 band: ${JSON.stringify(bands)}`);
    assert.ok(Math.abs(appended.tokensPerSec - PREFILL_TPS) < PREFILL_TPS * 0.2, `timed on the part read: ${JSON.stringify(appended)}`);
  });
});
