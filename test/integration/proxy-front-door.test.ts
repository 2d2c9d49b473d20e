/**
 * The proxy's front door (src/http/proxy-front-door.ts) takes the ordinary routed POST ahead of
 * Fastify and hands everything else to Fastify's routes. Whichever door a request comes
 * through, the app must get the same answer: these send the same request once as the front
 * door takes it and once in a shape it leaves to Fastify (a query string, a chunked body), on a
 * real Hub process over loopback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { errorCode, openRaw, rawRequest } from '../helpers/raw-http.js';

const MODEL = 'qwen3:8b';
const POOL = '/api/inference/pool';
const CHAT = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false });
/** Fastify's router ignores a query string; the front door takes exact paths only, so this reaches the Fastify route. */
const VIA_FASTIFY = '?door=fastify';

describe('the proxy front door', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
  });

  async function post(path: string, body: string, contentType = 'application/json') {
    const res = await request(`${hub.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text, code: errorCode(text) };
  }

  async function rowsFor(requestId: string) {
    const res = await request(`${hub.url}${POOL}/routing-log?limit=100`, { headers: { authorization: `Bearer ${hub.operatorKey}` } });
    const page = (await res.body.json()) as RoutingLogPage;
    return page.entries.filter((e) => e.id === requestId);
  }

  for (const [what, contentType] of [
    ['application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json; charset=utf-8'],
  ] as const) {
    it(`serves a chat sent as ${what} through either door alike, with attribution and a settled row`, async () => {
      for (const suffix of ['', VIA_FASTIFY]) {
        const res = await post(`${POOL}/v1/chat/completions${suffix}`, CHAT, contentType);
        assert.equal(res.status, 200, `${suffix || 'front door'}: ${res.text}`);
        assert.equal(res.headers['x-hub-pool-served-by'], 'local');
        assert.equal(res.headers['x-hub-pool-backend'], 'ollama');
        const answer = JSON.parse(res.text) as { choices: Array<{ message: { content: string } }> };
        assert.equal(typeof answer.choices[0]?.message.content, 'string');
        const rows = await rowsFor(String(res.headers['x-hub-pool-request-id']));
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.outcome, 'served');
      }
    });
  }

  it("answers a body that is not JSON with a 400 in the route's dialect, through either door", async () => {
    for (const suffix of ['', VIA_FASTIFY]) {
      const openai = await post(`${POOL}/v1/chat/completions${suffix}`, '{"model":');
      assert.equal(openai.status, 400, openai.text);
      assert.equal((JSON.parse(openai.text) as { error: { code: string } }).error.code, 'HUB_ERR_INVALID_JSON');
      const ollama = await post(`${POOL}/api/chat${suffix}`, '{"model":');
      assert.equal(ollama.status, 400, ollama.text);
      const body = JSON.parse(ollama.text) as { error: unknown; code: string };
      assert.equal(typeof body.error, 'string');
      assert.equal(body.code, 'HUB_ERR_INVALID_JSON');
    }
  });

  it('answers a body that names no model with the same 400 through either door', async () => {
    const answers = [];
    for (const suffix of ['', VIA_FASTIFY]) answers.push(await post(`${POOL}/v1/embeddings${suffix}`, JSON.stringify({ input: 'hi' })));
    for (const a of answers) assert.equal(a.code, 'HUB_ERR_MODEL_REQUIRED', a.text);
    assert.equal(answers[0]!.text, answers[1]!.text);
  });

  it('leaves a chunked body to Fastify, which serves it', async () => {
    const host = new URL(hub.url).host;
    const answer = await rawRequest(
      hub.url,
      `POST ${POOL}/v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${CHAT.length.toString(16)}\r\n${CHAT}\r\n0\r\n\r\n`,
    );
    assert.equal(answer.status, 200, answer.head);
    assert.match(answer.head, /x-hub-pool-served-by: local/i);
  });

  it('serves the next request on a keep-alive connection after a front-door answer', async () => {
    const host = new URL(hub.url).host;
    const one = `POST ${POOL}/v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${CHAT.length}\r\n\r\n${CHAT}`;
    const c = await openRaw(hub.url);
    c.write(`${one}${one.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`);
    const answer = await c.closed();
    const both = `${answer.head}\r\n\r\n${answer.body}`;
    assert.equal(both.match(/HTTP\/1\.1 200 /g)?.length, 2, both);
  });
});

describe('the proxy front door when the key store cannot be read', () => {
  let hub: HubProcess;

  before(async () => {
    // Damage the key table's indexes, one of which the key lookup reads: the Hub starts (nothing
    // reads them at start), and the first lookup throws SQLITE_CORRUPT inside the front door's guard.
    const first = await startHubProcess();
    await first.stop();
    const dbPath = join(first.dataDir, 'hub.db');
    const db = new Database(dbPath);
    const roots = db.prepare("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'api_key'").pluck().all() as number[];
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(dbPath, 'r+');
    for (const root of roots) writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (root - 1) * pageSize);
    closeSync(fd);
    hub = await startHubProcess({ dataDir: first.dataDir });
  });
  after(async () => {
    await hub?.stop();
  });

  it('answers a keyed request from behind a tunnel with an error and stays up', async () => {
    const res = await request(`${hub.url}${POOL}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-ray': 'test', authorization: 'Bearer cihub_inf_not-a-key' },
      body: CHAT,
    });
    const text = await res.body.text();
    assert.ok(res.statusCode >= 500, `${res.statusCode}: ${text}`);
    assert.equal(hub.child.exitCode, null, hub.log());
    const health = await request(`${hub.url}/healthz`);
    await health.body.dump();
    assert.equal(health.statusCode, 200);
  });
});
