/**
 * A clean answer ends a withhold only when its attempt began after the failures that started it
 * (src/proxy/withhold-book.ts). Regression for the soak of 2026-12-03: with 1,000 streams in
 * flight and an Ollama answering 500 to every new request, each stream that had begun before the
 * fault ended cleanly and lifted the withhold the new requests' failures had just started, so
 * the next requests went back to the failing engine (bench/README.md, 2026-12-03 22:00).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'qwen3:8b';
const ANSWER_TOKENS = 500;
const DECODE_TPS = 100;

async function chat(hub: HubProcess, stream: boolean) {
  return request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream }),
  });
}

async function withheldHere(hub: HubProcess): Promise<PoolStatus['withheld']['unservable']> {
  const { status, json } = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
  assert.equal(status, 200);
  return json.withheld.unservable;
}

describe('a model withheld while older streams on its engine are still running', () => {
  let ollama: SimEngine;
  let hub: HubProcess;

  before(async () => {
    // The only engine, so every request goes to it. Its answer runs at real time, 500 tokens at
    // 100 a second (5 s), so two requests can fail beside it.
    ollama = await startSimEngine({ dialect: 'ollama', models: [{ name: MODEL, decodeTps: DECODE_TPS }], answerTokens: ANSWER_TOKENS, timeScale: 1 });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url } });
  });
  after(async () => {
    await hub.stop();
    await ollama.close();
  });

  it('stays withheld when a stream that began before the failures ends cleanly', async () => {
    const stream = await chat(hub, true);
    assert.equal(stream.statusCode, 200);
    assert.equal(stream.headers['x-hub-pool-backend'], 'ollama');
    let text = '';
    let ended = false;
    const firstChunk = new Promise<void>((resolve) => stream.body.once('data', () => resolve()));
    stream.body.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const end = new Promise<void>((resolve) =>
      stream.body.once('end', () => {
        ended = true;
        resolve();
      }),
    );
    await firstChunk;

    await ollama.setFault({ mode: 'error', status: 500, body: '{"error":"boom"}' });
    for (let i = 0; i < 2; i++) {
      const res = await chat(hub, false);
      await res.body.text();
      assert.equal(res.statusCode, 502, 'the only engine answered 500');
    }
    await eventually(async () => (await withheldHere(hub)).length > 0, 'the Hub to withhold the model on Ollama');
    assert.equal(ended, false, `the older stream must still be running when the model is withheld (it lasts ${ANSWER_TOKENS / DECODE_TPS} s)`);

    await end;
    assert.match(text, /data: \[DONE\]/, 'the older stream ended cleanly');
    const withheld = await withheldHere(hub);
    assert.equal(withheld.length, 1, 'its clean end says nothing about the engine now');
    assert.match(withheld[0]!.key, /ollama/);
  });
});
