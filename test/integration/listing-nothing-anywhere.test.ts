/**
 * The listings' 502 is kept for one case: neither this node nor any peer has anything to list.
 * A lone Hub whose only engine refuses the container is that case; both official clients must
 * surface the reason as the Hub wrote it, in their own error types, with the container's-eye
 * view of the engine (localBackends) beside it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { LocalBackendReport } from '../../src/proxy/local-backends-report.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

describe('the listings on a lone Hub whose only engine refuses it', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: ['qwen3:8b'], timeScale: 0.01 });
    await engine.setFault({ mode: 'refuse' });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url, VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' } });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('/v1/models answers 502 saying no engine answered and no peer has models, as the OpenAI SDK shows it', async () => {
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
    await assert.rejects(
      async () => {
        for await (const model of client.models.list()) assert.fail(`nothing can be listed, yet ${model.id} was`);
      },
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.APIError, String(err));
        assert.equal(err.status, 502);
        assert.equal(err.message, '502 No engine on this Hub answered, and no peer has models to offer.');
        assert.equal(err.code, 'HUB_ERR_NO_CANDIDATE');
        const seen = (err.error as { localBackends: LocalBackendReport[] }).localBackends;
        assert.deepEqual(
          seen.map((b) => [b.url, b.running]),
          [[engine.url, false]],
        );
        return true;
      },
    );
  });

  it("/v1/models/{id} answers the listing's 502, not a 404: the model may well exist on the engine that did not answer", async () => {
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
    await assert.rejects(client.models.retrieve('qwen3:8b'), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError, String(err));
      assert.equal(err.status, 502);
      assert.equal(err.code, 'HUB_ERR_NO_CANDIDATE');
      return true;
    });
  });

  it('the OpenAI SDK on its default retries asks each listing once: their 502 says x-should-retry: false', async () => {
    const asked: string[] = [];
    const client = new OpenAI({
      baseURL: `${hub.pool}/v1`,
      apiKey: 'unused-on-loopback',
      fetch: (url, init) => {
        asked.push(String(url).slice(hub.pool.length));
        return fetch(url, init);
      },
    });
    const noRetry = (err: unknown): boolean => {
      assert.ok(err instanceof OpenAI.APIError, String(err));
      assert.equal(err.status, 502);
      assert.equal(err.headers?.get('x-should-retry'), 'false');
      return true;
    };
    await assert.rejects(client.models.list(), noRetry);
    await assert.rejects(client.models.retrieve('qwen3:8b'), noRetry);
    assert.deepEqual(asked, ['/v1/models', '/v1/models/qwen3:8b']);
  });

  it('/api/tags answers 502 naming the missing Ollama, as the ollama client shows it', async () => {
    const client = new Ollama({ host: hub.pool });
    await assert.rejects(client.list(), (err: unknown) => {
      assert.ok(err instanceof Error && 'status_code' in err, String(err));
      assert.equal(err.status_code, 502);
      assert.equal(err.message, "No Ollama engine on this Hub answered, and no peer has a model for Ollama's API to offer.");
      return true;
    });
  });
});
