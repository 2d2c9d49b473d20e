/**
 * Ollama's native dialect through a real Hub process, driven by the official ollama client.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ollama } from 'ollama';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

describe('Ollama dialect through the pool proxy', () => {
  let engine: SimEngine;
  let vllm: SimEngine;
  let hub: HubProcess;
  let client: Ollama;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: ['qwen3:8b', { name: 'nomic-embed-text', capabilities: ['embedding'] }], timeScale: 0.01 });
    vllm = await startSimEngine({ dialect: 'vllm', models: ['Qwen/Qwen3-4B'], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url, VLLM_URL: vllm.url } });
    client = new Ollama({ host: hub.pool });
  });
  after(async () => {
    await hub.stop();
    await Promise.all([engine.close(), vllm.close()]);
  });

  it("streams a chat as NDJSON and ends on the done frame with the engine's timings", async () => {
    const stream = await client.chat({ model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let frames = 0;
    let last: { done: boolean; eval_count?: number } | null = null;
    for await (const part of stream) {
      frames += 1;
      last = part;
    }
    assert.ok(frames > 2);
    assert.equal(last?.done, true);
    assert.ok((last?.eval_count ?? 0) > 0);
  });

  it('answers a non-streamed chat and generate whole', async () => {
    const chat = await client.chat({ model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }], stream: false });
    assert.equal(chat.done, true);
    assert.ok(chat.message.content.length > 0);
    const gen = await client.generate({ model: 'qwen3:8b', prompt: 'why', stream: false });
    assert.equal(gen.done, true);
  });

  it('relays embed and the legacy embeddings route', async () => {
    const embed = await client.embed({ model: 'nomic-embed-text', input: ['a', 'b'] });
    assert.equal(embed.embeddings.length, 2);
    const legacy = await client.embeddings({ model: 'nomic-embed-text', prompt: 'a' });
    assert.ok(Array.isArray(legacy.embedding));
  });

  it("answers Ollama's heartbeat at the pool's root, with and without the slash, as its clients check before a command", async () => {
    for (const url of [hub.pool, `${hub.pool}/`]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await request(url, { method });
        const text = await res.body.text();
        assert.equal(res.statusCode, 200, `${method} ${url}`);
        assert.match(String(res.headers['content-type']), /^text\/plain/);
        assert.equal(text, method === 'GET' ? 'Ollama is running' : '');
      }
    }
  });

  it('lists only models a native request can be placed on in /api/tags', async () => {
    const tags = await client.list();
    assert.deepEqual(tags.models.map((m) => m.name).sort(), ['nomic-embed-text:latest', 'qwen3:8b']);
  });

  it('answers /api/ps, /api/version and /api/show for this machine', async () => {
    await client.generate({ model: 'qwen3:8b', prompt: 'load', stream: false });
    const ps = await client.ps();
    assert.ok(ps.models.some((m) => m.name === 'qwen3:8b'));
    const version = await client.version();
    assert.ok(version.version.length > 0);
    const show = await client.show({ model: 'qwen3:8b' });
    assert.ok(show.details);
  });

  it('never relays model management: /api/pull answers 404 and the engine sees nothing', async () => {
    const before = engine.state().requests;
    const res = await request(`${hub.pool}/api/pull`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"qwen3:8b"}' });
    const body = (await res.body.json()) as { error: string; code: string };
    assert.equal(res.statusCode, 404);
    assert.equal(body.code, 'HUB_ERR_ROUTE_NOT_PROXIED');
    assert.equal(engine.state().requests, before);
  });
});
