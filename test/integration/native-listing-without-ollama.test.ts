/**
 * A Hub whose engines speak only the OpenAI dialect (a vLLM here; a Lemonade-only node is the same
 * case) has nothing to list on Ollama's native API: native requests are placed on Ollama engines
 * only, since the Hub relays bytes and does not translate. Its /api/tags 502 once said that no
 * engine on this Hub answered while the vLLM was answering /v1/models beside it, which sends an
 * operator to look at a healthy engine. The 502 names what is missing: an Ollama.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'Qwen/Qwen3-8B';

interface Answer {
  readonly status: number;
  readonly json: { data?: { id: string }[]; error?: string; code?: string; localBackends?: { kind: string; healthy: boolean }[] };
}

async function getJson(hub: HubProcess, path: string): Promise<Answer> {
  const res = await request(`${hub.pool}${path}`);
  return { status: res.statusCode, json: (await res.body.json()) as Answer['json'] };
}

describe('the native listing on a Hub with no Ollama engine', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    engine = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { VLLM_URL: engine.url, OLLAMA_URL: 'off', OMLX_URL: 'off', LEMONADE_URL: 'off' } });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('answers 502 naming the missing Ollama, not saying that no engine answered while the vLLM lists its model', async () => {
    const openai = await getJson(hub, '/v1/models');
    assert.equal(openai.status, 200, JSON.stringify(openai.json));
    assert.deepEqual(
      (openai.json.data ?? []).map((m) => m.id),
      [MODEL],
      'the vLLM answers',
    );

    const tags = await getJson(hub, '/api/tags');
    assert.equal(tags.status, 502, JSON.stringify(tags.json));
    assert.equal(tags.json.code, 'HUB_ERR_NO_CANDIDATE');
    assert.match(tags.json.error ?? '', /No Ollama engine on this Hub answered/);
    assert.deepEqual(
      (tags.json.localBackends ?? []).map((b) => `${b.kind} ${b.healthy ? 'healthy' : 'unhealthy'}`),
      ['vllm healthy'],
      'the body still shows the engine the Hub can see',
    );
  });
});
