/**
 * The simulator counts every request its engine port receives by path, so a test through a real
 * Hub can show which of an engine's routes the Hub asked (a residency read on /api/ps, a probe,
 * a listing) and which it left alone; `requests` counts inference only and cannot say.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scaled } from '../../test/helpers/time-scale.js';
import { startSimEngine } from './engine.js';
import { getReply, postJson } from './test-helpers.js';

const HTTP_SUITE_TIMEOUT_MS = scaled(60_000);

describe('requests by path', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('counts each path asked, answered or not found, leaves out /__sim and paths never asked, and reset clears it', async () => {
    const engine = await startSimEngine({ dialect: 'ollama', models: ['m1'], timeScale: 0 });
    try {
      assert.deepEqual(engine.state().requestsByPath, {});
      await getReply(`${engine.url}/api/ps`);
      await getReply(`${engine.url}/api/ps?verbose=1`);
      await getReply(`${engine.url}/api/tags`);
      await getReply(`${engine.url}/no/such/route`);
      await postJson(`${engine.url}/api/chat`, { model: 'm1', stream: false, messages: [{ role: 'user', content: 'hi' }] });
      await getReply(`${engine.url}/__sim/state`);
      assert.deepEqual(engine.state().requestsByPath, { '/api/ps': 2, '/api/tags': 1, '/no/such/route': 1, '/api/chat': 1 });
      assert.equal(engine.state().requests, 1, 'requests still counts inference only');

      const overHttp = (await getReply(`${engine.url}/__sim/state`)).text;
      assert.equal((JSON.parse(overHttp) as { requestsByPath: Record<string, number> }).requestsByPath['/api/ps'], 2);

      engine.reset();
      assert.deepEqual(engine.state().requestsByPath, {});
    } finally {
      await engine.close();
    }
  });
});
