/**
 * The four attribution headers on every route the proxy routes, whole and streamed: which node
 * served, its engine kind, the model routed for, and the id of the routing-log row, which names
 * that same path. Other tests read them on the chat routes; this one walks the whole route list.
 * Prefix affinity is on and every request names a session, so the affinity header and record
 * show up on exactly the routes affinity judges (chat, completion, generate) and on no embedding route.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const CHAT = 'qwen3:8b';
const EMBED = 'nomic-embed-text:latest';
const MESSAGES = [{ role: 'user', content: 'hello' }];

const ROUTES: readonly { path: string; body: Record<string, unknown> }[] = [
  { path: '/v1/chat/completions', body: { model: CHAT, messages: MESSAGES } },
  { path: '/v1/chat/completions', body: { model: CHAT, messages: MESSAGES, stream: true } },
  { path: '/v1/completions', body: { model: CHAT, prompt: 'hello' } },
  { path: '/v1/completions', body: { model: CHAT, prompt: 'hello', stream: true } },
  { path: '/v1/embeddings', body: { model: EMBED, input: ['hello'] } },
  { path: '/api/generate', body: { model: CHAT, prompt: 'hello', stream: false } },
  { path: '/api/generate', body: { model: CHAT, prompt: 'hello' } },
  { path: '/api/chat', body: { model: CHAT, messages: MESSAGES, stream: false } },
  { path: '/api/chat', body: { model: CHAT, messages: MESSAGES } },
  { path: '/api/embeddings', body: { model: EMBED, prompt: 'hello' } },
  { path: '/api/embed', body: { model: EMBED, input: ['hello'] } },
];

describe('attribution headers on every routed path', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [CHAT, { name: EMBED, capabilities: ['embedding'] }], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
    await eventually(async () => {
      const { json } = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
      return json.localNode.backends.every((b) => b.healthy && b.models.includes(EMBED));
    }, 'the engine to be probed');
    const on = await hub.api('PATCH', '/api/inference/pool/settings', { poolPrefixAffinityMaxInFlight: 2 });
    assert.equal(on.status, 200, JSON.stringify(on.json));
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
  });

  for (const { path, body } of ROUTES) {
    const judged = !path.includes('embed');
    const streamed = body.stream === true || (path.startsWith('/api/') && body.stream === undefined && !path.includes('embed'));
    it(`${path}${streamed ? ' (streamed)' : ''} names local, ollama, ${String(body.model)} and its row`, async () => {
      const res = await request(`${hub.pool}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-pool-session': `session-${path}` },
        body: JSON.stringify(body),
      });
      // Read before the body: the headers are set before the first body byte.
      const headers = {
        servedBy: res.headers['x-hub-pool-served-by'],
        backend: res.headers['x-hub-pool-backend'],
        model: res.headers['x-hub-pool-model'],
      };
      const affinity = res.headers['x-hub-pool-affinity'];
      const id = String(res.headers['x-hub-pool-request-id']);
      const text = await res.body.text();
      assert.equal(res.statusCode, 200, text);
      assert.deepEqual(headers, { servedBy: 'local', backend: 'ollama', model: body.model });
      const row = await eventually(async () => {
        const page = (await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log')).json;
        return page.entries.find((e) => e.id === id && e.outcome !== 'pending');
      }, `row ${id} to settle`);
      assert.deepEqual(
        { path: row.path, node: row.node, backend: row.backend, model: row.model, stream: row.stream },
        { path, node: 'local', backend: 'ollama', model: body.model, stream: streamed },
      );
      if (judged) {
        assert.ok(affinity === 'hit' || affinity === 'miss' || affinity === 'skipped', `affinity header: ${String(affinity)}`);
        assert.deepEqual({ outcome: row.affinity?.outcome, key: row.affinity?.key }, { outcome: affinity, key: 'header' });
      } else {
        assert.equal(affinity, undefined, 'no affinity header on a route affinity does not judge');
        assert.equal(row.affinity, null);
      }
    });
  }
});
