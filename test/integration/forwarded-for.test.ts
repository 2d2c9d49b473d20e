/**
 * X-Forwarded-For never buys keyless inference (issue 9, defect 7). The attack needs a caller
 * whose own address is outside, which loopback cannot produce, so these run a Hub in this
 * process and hand it requests with a chosen source address (Fastify's inject).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/util/logger.js';
import { loadEnv } from '../../src/config/env.js';
import { startHub, type HubSystem } from '../../src/system.js';
import { freshDataDir } from '../helpers/hub-process.js';

const ENGINES_OFF = { OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: '' };
const CHAT = JSON.stringify({ model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }] });

describe('X-Forwarded-For and the inference guard', () => {
  let hub: HubSystem;
  before(async () => {
    // The caller's own range is even listed as a proxy: its header still cannot make it inside.
    const env = loadEnv({ ...ENGINES_OFF, HUB_TRUST_PROXY: '203.0.113.0/24' }, { port: 0, host: '127.0.0.1', dataDir: freshDataDir() });
    hub = await startHub(env, { logger: createLogger('silent') });
  });
  after(async () => {
    await hub?.close();
  });

  const chatFrom = (remoteAddress: string, headers: Record<string, string>) =>
    hub.app.inject({
      method: 'POST',
      url: '/api/inference/pool/v1/chat/completions',
      remoteAddress,
      headers: { host: '127.0.0.1', 'content-type': 'application/json', ...headers },
      payload: CHAT,
    });

  it('refuses HUB_TRUST_PROXY=true at start: it would believe the header from every caller', () => {
    for (const value of ['true', '1', 'yes', 'on']) assert.throws(() => loadEnv({ HUB_TRUST_PROXY: value }), /HUB_TRUST_PROXY/);
  });

  for (const forwarded of ['127.0.0.1', '127.0.0.1, 10.0.0.1', 'for=127.0.0.1']) {
    it(`still asks a public caller for a key when it sends ${forwarded.startsWith('for=') ? 'Forwarded' : 'X-Forwarded-For'}: ${forwarded}`, async () => {
      const res = await chatFrom('203.0.113.7', forwarded.startsWith('for=') ? { forwarded } : { 'x-forwarded-for': forwarded });
      assert.equal(res.statusCode, 401, res.body);
      assert.equal((JSON.parse(res.body) as { error: { code: string } }).error.code, 'missing_api_key');
    });
  }

  it('lets a forwarded hop make a caller outside, never inside: loopback through a public hop needs a key', async () => {
    const res = await chatFrom('127.0.0.1', { 'x-forwarded-for': '198.51.100.4' });
    assert.equal(res.statusCode, 401, res.body);
  });

  it('admits the same request from loopback with no forwarded header (the positive control)', async () => {
    const res = await chatFrom('127.0.0.1', {});
    assert.notEqual(res.statusCode, 401, res.body);
  });
});
