/**
 * What a qa:read credential reads, on a real Hub: a qa:read API key, and a dashboard session
 * signed in with one (read-only). The spec lets them read pool status and the routing log, and
 * issue 12 the Prometheus /metrics that mirrors them; every other GET answers 403
 * AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED, the model handout included, which the operator key reads.
 * The refusal names each route the credential does read, so a monitor author learns the reach from
 * the answer itself.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'qwen3:8b';
const READS = ['/api/inference/pool/status', '/api/inference/pool/routing-log', '/metrics'];
const REFUSED = [`/api/inference/pool/handout?model=${MODEL}`];

describe('what a qa:read credential reads', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  let qaKey: string;
  let session: Record<string, string>;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
    qaKey = (await hub.api<{ key: string }>('POST', '/api/hub/api-keys', { name: 'fleet-qa', scope: 'qa:read' })).json.key;
    const signIn = await request(`${hub.url}/api/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: hub.url },
      body: JSON.stringify({ key: qaKey }),
    });
    const body = (await signIn.body.json()) as { role: string; csrfToken: string };
    assert.equal(signIn.statusCode, 200);
    assert.equal(body.role, 'read');
    session = { origin: hub.url, cookie: String(signIn.headers['set-cookie']).split(';')[0]!, 'x-cihub-csrf': body.csrfToken };
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
  });

  const get = async (path: string, headers: Record<string, string>) => {
    const res = await request(`${hub.url}${path}`, { headers });
    return { status: res.statusCode, text: await res.body.text() };
  };

  for (const [who, headers] of [
    ['a qa:read key', () => ({ authorization: `Bearer ${qaKey}` })],
    ['a read-only dashboard session', () => session],
  ] as const) {
    for (const path of READS) {
      it(`${who} reads GET ${path}`, async () => {
        const res = await get(path, headers());
        assert.equal(res.status, 200, res.text);
      });
    }
    for (const path of REFUSED) {
      it(`${who} is refused GET ${path} with 403 AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED`, async () => {
        const res = await get(path, headers());
        assert.equal(res.status, 403, res.text);
        const { error } = JSON.parse(res.text) as { error: { code: string; message: string } };
        assert.equal(error.code, 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED');
        for (const read of READS) assert.ok(error.message.includes(`GET ${read}`), `the refusal names GET ${read}: ${error.message}`);
      });
    }
  }

  for (const path of REFUSED) {
    it(`the operator key reads GET ${path}`, async () => {
      const res = await get(path, { authorization: `Bearer ${hub.operatorKey}` });
      assert.equal(res.status, 200, res.text);
    });
  }
});
