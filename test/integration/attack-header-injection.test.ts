/**
 * Header injection into forwarded requests (issue 15, item 2). An app sends the pool proxy the
 * headers that mean something between Hubs or to an engine: forged signing headers, a request
 * id naming another request, a claimed serving backend, credentials, cookies and forwarding
 * hops. Real Hubs on loopback: hub-a serves one model from its own engine and forwards another
 * to hub-b; recording proxies sit in front of each engine and between the two Hubs, so the test
 * holds exactly what each hop received. Nothing the app chose among those headers reaches an
 * engine or the peer: the peer sees hub-a's own signature and request id, the engines see only
 * what the Hub sets itself (content type, accept, trace context), and the answer is served.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS } from '../../src/config/env.js';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import {
  eventually,
  fqdn,
  pairHubs,
  POOL,
  RecordingProxy,
  reservePorts,
  send,
  startNamedHub,
  status,
  type HubProcess,
  type Recorded,
} from './pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');
const LOCAL = 'qwen3:8b';
const REMOTE = 'llama3.2:3b';
const VICTIM_REQUEST_ID = 'victim-request-id-0001';

/** What an app might add to steer or impersonate a hop. Names only an app would set; each value is distinctive. */
const HOSTILE: Record<string, string> = {
  'x-hub-pool-peer': B,
  'x-hub-pool-node': randomUUID(),
  'x-hub-pool-recipient': randomUUID(),
  'x-hub-pool-timestamp': String(Date.now()),
  'x-hub-pool-nonce': randomBytes(16).toString('base64url'),
  'x-hub-pool-signature': `v1.ed25519.${randomBytes(64).toString('base64url')}`,
  'x-hub-pool-request-id': VICTIM_REQUEST_ID,
  'x-hub-pool-model': 'injected-model',
  'x-hub-pool-stall-ms': '999999999',
  'x-hub-pool-backend': 'vllm',
  'x-hub-pool-served-by': 'injected-node',
  'proxy-authorization': 'Basic aW5qZWN0ZWQ6aW5qZWN0ZWQ=',
  cookie: 'session=injected',
  'x-forwarded-for': '203.0.113.7',
  'x-forwarded-host': 'evil.example.com',
  forwarded: 'for=203.0.113.7;host=evil.example.com',
  'x-real-ip': '203.0.113.7',
  'x-injected-by-app': 'injected',
};
/** Headers an engine may see: the Hub sets these itself (or relays the app's accept and trace context). */
const ENGINE_MAY_SEE = new Set([
  'host',
  'connection',
  'content-type',
  'content-length',
  'transfer-encoding',
  'accept',
  'traceparent',
  'tracestate',
  'keep-alive',
]);

describe('headers an app adds to steer forwarded requests', () => {
  let engineA: SimEngine;
  let engineB: SimEngine;
  let frontA: RecordingProxy;
  let frontB: RecordingProxy;
  let proxyAB: RecordingProxy;
  let hubA: HubProcess;
  let hubB: HubProcess;
  /** The forwarding headers make the caller an outside one, so it presents a real inference key; the key must not travel on either. */
  let withKey: Record<string, string>;

  before(async () => {
    engineA = await startSimEngine({ dialect: 'ollama', models: [LOCAL], timeScale: 0.01 });
    engineB = await startSimEngine({ dialect: 'ollama', models: [REMOTE], timeScale: 0.01 });
    frontA = await new RecordingProxy(engineA.url).start();
    frontB = await new RecordingProxy(engineB.url).start();
    const ports = await reservePorts(['a', 'b']);
    proxyAB = await new RecordingProxy(`http://127.0.0.1:${ports.b}`).start();
    [hubA, hubB] = await startTogether([
      startNamedHub({ name: A, port: ports.a, origins: { [B]: proxyAB.origin }, env: { OLLAMA_URL: frontA.origin } }),
      startNamedHub({ name: B, port: ports.b, origins: { [A]: `http://127.0.0.1:${ports.a}` }, env: { OLLAMA_URL: frontB.origin } }),
    ]);
    await pairHubs(hubA, A, hubB, B);
    await eventually(
      async () => ((await status(hubA)) as PoolStatus).peers.some((p) => p.backends?.some((b) => b.models.includes(REMOTE))),
      `hub-a to hold hub-b's ${REMOTE}`,
    );
    const minted = await hubA.api<{ key: string }>('POST', '/api/hub/api-keys', { name: 'app', scope: 'inference' });
    assert.equal(minted.status, 201, JSON.stringify(minted.json));
    withKey = { ...HOSTILE, authorization: `Bearer ${minted.json.key}` };
  });
  after(async () => {
    await Promise.all([hubA, hubB].filter(Boolean).map((h) => h.stop()));
    await Promise.all([frontA?.close(), frontB?.close(), proxyAB?.close(), engineA?.close(), engineB?.close()]);
  });

  const chatBody = (model: string) => ({ model, stream: false, messages: [{ role: 'user', content: 'hi' }] });
  const inference = (records: readonly Recorded[]) => records.filter((r) => r.method === 'POST' && /\/(api\/chat|v1\/chat\/completions)$/.test(r.url));

  function assertEngineSawOnlyHubHeaders(rec: Recorded, where: string): void {
    assert.ok(!JSON.stringify(rec.headers).includes(withKey.authorization!.slice('Bearer '.length)), `${where} received the app's key`);
    const extra = Object.keys(rec.headers).filter((h) => !ENGINE_MAY_SEE.has(h));
    assert.deepEqual(extra, [], `${where} received headers the Hub does not set: ${extra.join(', ')}`);
    for (const value of Object.values(rec.headers)) assert.ok(!String(value).includes('injected'), `${where} received an injected value: ${String(value)}`);
  }

  for (const path of ['/api/chat', '/v1/chat/completions']) {
    it(`on ${path}, a locally served request reaches its engine with none of the app's hop headers`, async () => {
      const before = inference(frontA.records).length;
      const res = await send(hubA.url, 'POST', `${POOL}${path}`, { headers: withKey, body: chatBody(LOCAL) });
      assert.equal(res.status, 200, res.text);
      assert.notEqual(res.headers['x-hub-pool-request-id'], VICTIM_REQUEST_ID, 'the answer names the Hub’s own request id');
      assert.notEqual(res.headers['x-hub-pool-served-by'], 'injected-node');
      const seen = inference(frontA.records).slice(before);
      assert.equal(seen.length, 1);
      assertEngineSawOnlyHubHeaders(seen[0]!, "hub-a's engine");
    });

    it(`on ${path}, a forwarded request carries hub-a's own signature, request id and stall budget to the peer, and none of the app's headers reach either hop`, async () => {
      const beforeHop = proxyAB.records.length;
      const beforeEngine = inference(frontB.records).length;
      const res = await send(hubA.url, 'POST', `${POOL}${path}`, { headers: withKey, body: chatBody(REMOTE) });
      assert.equal(res.status, 200, res.text);
      const hop = proxyAB.records.slice(beforeHop).filter((r) => r.url.startsWith(`${POOL}/local/`));
      assert.equal(hop.length, 1, 'one forward to hub-b');
      const h = hop[0]!.headers;
      for (const name of Object.keys(withKey)) {
        assert.notEqual(h[name], withKey[name], `hub-b received the app's ${name}`);
      }
      assert.equal(h['x-hub-pool-peer'], A, 'the forward names hub-a');
      assert.equal(h['x-hub-pool-model'], REMOTE);
      assert.equal(
        h['x-hub-pool-stall-ms'],
        String(DEFAULT_FIRST_BYTE_TIMEOUT_MS),
        "hub-a states its own stall budget (this small request's header budget), not the app's",
      );
      assert.equal(typeof h['x-hub-pool-signature'], 'string', 'signed by hub-a');
      for (const absent of [
        'cookie',
        'proxy-authorization',
        'x-forwarded-for',
        'x-forwarded-host',
        'forwarded',
        'x-real-ip',
        'x-injected-by-app',
        'x-hub-pool-backend',
      ])
        assert.equal(h[absent], undefined, `hub-b received ${absent}`);
      const seen = inference(frontB.records).slice(beforeEngine);
      assert.equal(seen.length, 1);
      assertEngineSawOnlyHubHeaders(seen[0]!, "hub-b's engine");
      const rows = (await hubB.api<{ entries: { id: string }[] }>('GET', `${POOL}/routing-log?limit=500`)).json.entries;
      assert.ok(!rows.some((r) => r.id === VICTIM_REQUEST_ID), "hub-b logged the app's request id");
    });
  }

  it("refuses the app's forged signing headers on the peer route itself: an app cannot reach /local/* as hub-a", async () => {
    const res = await send(hubB.url, 'POST', `${POOL}/local/api/chat`, { headers: HOSTILE, body: chatBody(REMOTE) });
    assert.equal(res.status, 401, res.text);
  });
});
