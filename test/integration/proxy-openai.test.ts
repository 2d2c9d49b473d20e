/**
 * The OpenAI dialect through a real Hub process, driven by the official openai SDK, against
 * simulated Ollama and vLLM engines on loopback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

async function rowsRecorded(hub: HubProcess): Promise<number> {
  const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
  return json.summary.totalRecorded;
}

describe('OpenAI dialect through the pool proxy', () => {
  let ollama: SimEngine;
  let vllm: SimEngine;
  let hub: HubProcess;
  let client: OpenAI;

  before(async () => {
    ollama = await startSimEngine({
      dialect: 'ollama',
      models: ['qwen3:8b', { name: 'llama3.2:3b', capabilities: ['completion'] }, { name: 'nomic-embed-text', capabilities: ['embedding'] }],
      timeScale: 0.01,
    });
    vllm = await startSimEngine({ dialect: 'vllm', models: ['Qwen/Qwen3-4B'], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url, VLLM_URL: vllm.url } });
    client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine', maxRetries: 0 });
  });
  after(async () => {
    await hub.stop();
    await Promise.all([ollama.close(), vllm.close()]);
  });

  it('answers a non-streamed chat from the engine that holds the model and says who served it', async () => {
    const { data, response } = await client.chat.completions.create({ model: 'Qwen/Qwen3-4B', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
    assert.equal(data.object, 'chat.completion');
    assert.ok((data.choices[0]?.message.content ?? '').length > 0);
    assert.equal(response.headers.get('x-hub-pool-served-by'), 'local');
    assert.equal(response.headers.get('x-hub-pool-backend'), 'vllm');
    assert.equal(response.headers.get('x-hub-pool-model'), 'Qwen/Qwen3-4B');
    assert.match(response.headers.get('x-hub-pool-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(vllm.state().requests, 1);
  });

  it('streams a chat chunk by chunk, with the attribution headers before the first chunk', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'qwen3:8b', stream: true, messages: [{ role: 'user', content: 'count' }] })
      .withResponse();
    assert.equal(response.headers.get('x-hub-pool-backend'), 'ollama');
    assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
    let chunks = 0;
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.ok(chunks > 2, `expected several chunks, got ${chunks}`);
    assert.ok(text.length > 0);
    assert.ok(finish === 'stop' || finish === 'length');
  });

  it('serves legacy completions and embeddings', async () => {
    const completion = await client.completions.create({ model: 'Qwen/Qwen3-4B', prompt: 'Once upon' });
    assert.equal(completion.object, 'text_completion');
    const embedding = await client.embeddings.create({ model: 'nomic-embed-text', input: 'pool' });
    assert.ok(Array.isArray(embedding.data[0]?.embedding));
  });

  it("lists every engine's models once on /v1/models", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids.sort(), ['Qwen/Qwen3-4B', 'llama3.2:3b', 'nomic-embed-text:latest', 'qwen3:8b'].sort());
  });

  it('resolves auto to a chat model, never an embedding model, and names it in X-Hub-Pool-Model', async () => {
    const { response } = await client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'pick' }] }).withResponse();
    const resolved = response.headers.get('x-hub-pool-model');
    assert.ok(resolved !== null && resolved !== 'auto' && !resolved.startsWith('nomic-embed-text'), `auto resolved to ${resolved}`);
  });

  it('answers a model nobody holds with the 502 naming it, carrying only the request id and the engines it checked', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'missing:1b', messages: [{ role: 'user', content: 'x' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 502);
      assert.match(err.message, /No pool node currently has model "missing:1b" available/);
      assert.ok(err.headers?.get('x-hub-pool-request-id'));
      assert.equal(err.headers?.get('x-hub-pool-served-by'), null);
      const body = err.error as { localBackends?: Array<{ backend: string; running: boolean }> };
      assert.deepEqual(
        body.localBackends?.map((b) => [b.backend, b.running]),
        [
          ['ollama', true],
          ['vllm', true],
        ],
      );
      return true;
    });
  });

  it('is asked once, not retried by an SDK on its default retries, for a model nobody holds', async () => {
    const retrying = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine' });
    const rowsBefore = await rowsRecorded(hub);
    await assert.rejects(retrying.chat.completions.create({ model: 'nobody-holds:1b', messages: [{ role: 'user', content: 'x' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 502);
      assert.equal(err.headers?.get('x-should-retry'), 'false');
      return true;
    });
    assert.equal(await rowsRecorded(hub), rowsBefore + 1, 'one request reached the Hub');
  });

  it('refuses a request with no model with a 400 the SDK shows verbatim', async () => {
    await assert.rejects(client.chat.completions.create({ messages: [{ role: 'user', content: 'x' }] } as never), (err: unknown) => {
      assert.ok(err instanceof OpenAI.BadRequestError);
      assert.match(err.message, /names no model/);
      return true;
    });
  });
});
