/**
 * Who may use the pool proxy and the operator routes, on real Hub processes. The proxy admits
 * callers from inside the machine by origin, and anyone else only with an inference key; a
 * qa:read key reads status and the routing log and nothing more. Keys are shown once and are
 * never written anywhere in the clear.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

const MODEL = 'qwen3:8b';
const PUBLIC_HOP = '203.0.113.7';
const TAILNET_HOP = '100.101.1.2';

interface OpenAIError {
  error: { message: string; type: string; code: string };
}

interface CreatedKey {
  id: string;
  name: string;
  scope: string;
  key: string;
}

/** A chat through the proxy with whatever headers a test wants to present. */
async function chat(hub: HubProcess, headers: Record<string, string> = {}, path = '/v1/chat/completions') {
  const res = await request(`${hub.pool}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) as OpenAIError };
}

async function createKey(hub: HubProcess, name: string, scope: 'inference' | 'qa:read'): Promise<CreatedKey> {
  const res = await runCli(['api-key', 'create', '--name', name, '--scope', scope, '--yes', '--json'], { dataDir: hub.dataDir });
  assert.equal(res.code, 0, res.stderr);
  const created = JSON.parse(res.stdout) as CreatedKey;
  assert.equal(created.scope, scope);
  assert.equal(created.name, name);
  assert.ok(created.key.length >= 32);
  return created;
}

/** Every byte the Hub has written to its data dir's database files. */
function databaseBytes(dataDir: string): Buffer {
  return Buffer.concat(
    readdirSync(dataDir)
      .filter((f) => f.startsWith('hub.db'))
      .map((f) => readFileSync(join(dataDir, f))),
  );
}

function assertRefused(res: Awaited<ReturnType<typeof chat>>, code: 'missing_api_key' | 'invalid_api_key'): OpenAIError['error'] {
  assert.equal(res.status, 401, res.text);
  const body = res.json();
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'type']);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.type, 'string');
  assert.match(body.error.message, /cihub api-key create/);
  return body.error;
}

describe('inference access guard and API keys', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  let strict: HubProcess;
  const secrets: string[] = [];

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    [hub, strict] = await startTogether([
      startHubProcess({ env: { OLLAMA_URL: engine.url } }),
      startHubProcess({ env: { OLLAMA_URL: engine.url, HUB_INFERENCE_TAILNET_AUTH: 'require-key' } }),
    ]);
  });
  after(async () => {
    await Promise.all([hub?.stop(), strict?.stop()]);
    await engine?.close();
  });

  describe('by origin', () => {
    it('admits a loopback caller with no key', async () => {
      const res = await chat(hub);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['x-hub-pool-served-by'], 'local');
      const models = await request(`${hub.pool}/v1/models`);
      assert.equal(models.statusCode, 200);
      await models.body.dump();
    });

    it('admits a loopback caller sending a junk Bearer token, which it never treats as a key', async () => {
      const res = await chat(hub, { authorization: 'Bearer ollama' });
      assert.equal(res.status, 200, res.text);
    });

    it('refuses a request carrying cf-ray with an OpenAI-shaped missing_api_key, before it reaches an engine', async () => {
      const before = engine.state().requests;
      for (const path of ['/v1/chat/completions', '/api/chat']) {
        const err = assertRefused(await chat(hub, { 'cf-ray': '8a1b2c3d4e5f6a7b-AMS' }, path), 'missing_api_key');
        assert.match(err.message, /cf-ray/);
      }
      const models = await request(`${hub.pool}/v1/models`, { headers: { 'cf-ray': '8a1b2c3d4e5f6a7b-AMS' } });
      assert.equal(models.statusCode, 401);
      await models.body.dump();
      assert.equal(engine.state().requests, before);
    });

    it('makes the openai SDK raise AuthenticationError saying how to create a key', async () => {
      const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'sk-not-a-hub-key', maxRetries: 0, defaultHeaders: { 'cf-ray': '8a1b2c3d4e5f6a7b-AMS' } });
      await assert.rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }), (err: unknown) => {
        assert.ok(err instanceof OpenAI.AuthenticationError, `got ${String(err)}`);
        assert.equal(err.status, 401);
        assert.match(err.message, /cihub api-key create --name <label> --scope inference/);
        return true;
      });
    });

    it('refuses a request with a public X-Forwarded-For hop', async () => {
      assertRefused(await chat(hub, { 'x-forwarded-for': `${PUBLIC_HOP}, 10.0.0.2` }), 'missing_api_key');
    });

    it('answers invalid_api_key to an outside caller presenting a key the Hub never issued', async () => {
      const err = assertRefused(await chat(hub, { 'x-forwarded-for': PUBLIC_HOP, authorization: 'Bearer cihub_inf_made-up' }), 'invalid_api_key');
      assert.match(err.message, /not a live inference key/);
    });

    it('admits a tailnet hop with no key by default, IPv4 and IPv6', async () => {
      assert.equal((await chat(hub, { 'x-forwarded-for': TAILNET_HOP })).status, 200);
      assert.equal((await chat(hub, { 'x-forwarded-for': 'fd7a:115c:a1e0::1' })).status, 200);
    });

    it('refuses a tailnet hop under HUB_INFERENCE_TAILNET_AUTH=require-key, saying why', async () => {
      const err = assertRefused(await chat(strict, { 'x-forwarded-for': TAILNET_HOP }), 'missing_api_key');
      assert.match(err.message, /HUB_INFERENCE_TAILNET_AUTH=require-key/);
      assert.equal((await chat(strict)).status, 200, 'loopback stays admitted');
    });
  });

  describe('by inference key', () => {
    it('admits an outside caller with a key made by `cihub api-key create --scope inference`', async () => {
      const created = await createKey(hub, 'editor', 'inference');
      secrets.push(created.key);
      const res = await chat(hub, { 'x-forwarded-for': PUBLIC_HOP, authorization: `Bearer ${created.key}` });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['x-hub-pool-served-by'], 'local');
      const viaCfRay = await chat(hub, { 'cf-ray': '8a1b2c3d4e5f6a7b-AMS', authorization: `Bearer ${created.key}` });
      assert.equal(viaCfRay.status, 200);
      const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: created.key, maxRetries: 0, defaultHeaders: { 'x-forwarded-for': PUBLIC_HOP } });
      const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
      assert.ok((completion.choices[0]?.message.content ?? '').length > 0);
    });

    // The 2026-10-23 fleet pass: every Hub answered GET /v1/models and a chat completion to a
    // tailnet caller holding no key. Under require-key the listings are guarded as the chat is.
    it('refuses the listings to a keyless tailnet caller under require-key, and answers them with a key (the 2026-10-23 fleet pass)', async () => {
      const created = await createKey(strict, 'lister', 'inference');
      secrets.push(created.key);
      for (const path of ['/v1/models', '/api/tags']) {
        const keyless = await request(`${strict.pool}${path}`, { headers: { 'x-forwarded-for': TAILNET_HOP } });
        const body = (await keyless.body.json()) as OpenAIError;
        assert.equal(keyless.statusCode, 401, `${path}: ${JSON.stringify(body)}`);
        assert.equal(body.error.code, 'missing_api_key');
        assert.match(body.error.message, /HUB_INFERENCE_TAILNET_AUTH=require-key/);
        const keyed = await request(`${strict.pool}${path}`, { headers: { 'x-forwarded-for': TAILNET_HOP, authorization: `Bearer ${created.key}` } });
        assert.equal(keyed.statusCode, 200, path);
        await keyed.body.dump();
      }
    });

    it('admits a tailnet caller with a key where tailnet callers need one', async () => {
      const created = await createKey(strict, 'laptop', 'inference');
      secrets.push(created.key);
      const res = await chat(strict, { 'x-forwarded-for': TAILNET_HOP, authorization: `Bearer ${created.key}` });
      assert.equal(res.status, 200, res.text);
    });

    it('refuses a key once it is revoked', async () => {
      const created = await createKey(hub, 'short-lived', 'inference');
      secrets.push(created.key);
      const outside = { 'x-forwarded-for': PUBLIC_HOP, authorization: `Bearer ${created.key}` };
      assert.equal((await chat(hub, outside)).status, 200);
      const revoked = await runCli(['api-key', 'revoke', created.id, '--yes'], { dataDir: hub.dataDir });
      assert.equal(revoked.code, 0, revoked.stderr);
      assertRefused(await chat(hub, outside), 'invalid_api_key');
    });

    it('does not let a qa:read key into the proxy from outside', async () => {
      const qa = await createKey(hub, 'monitor-proxy', 'qa:read');
      secrets.push(qa.key);
      assertRefused(await chat(hub, { 'x-forwarded-for': PUBLIC_HOP, authorization: `Bearer ${qa.key}` }), 'invalid_api_key');
    });
  });

  describe('a qa:read key on the operator routes', () => {
    let qa: CreatedKey;
    let inference: CreatedKey;
    const as = (key: string) => ({ authorization: `Bearer ${key}` });

    before(async () => {
      qa = await createKey(hub, 'fleet-qa', 'qa:read');
      inference = await createKey(hub, 'app', 'inference');
      secrets.push(qa.key, inference.key);
    });

    for (const path of ['/api/inference/pool/status', '/api/inference/pool/routing-log']) {
      it(`reads GET ${path}`, async () => {
        const res = await request(`${hub.url}${path}`, { headers: as(qa.key) });
        assert.equal(res.statusCode, 200);
        const body = (await res.body.json()) as Record<string, unknown>;
        assert.ok(path.endsWith('status') ? 'localNode' in body : 'entries' in body);
      });
    }

    for (const path of ['/api/inference/pool/settings', '/api/hub/api-keys']) {
      it(`is refused GET ${path} with 403 AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED`, async () => {
        const res = await request(`${hub.url}${path}`, { headers: as(qa.key) });
        assert.equal(res.statusCode, 403);
        const body = (await res.body.json()) as { error: { code: string } };
        assert.equal(body.error.code, 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED');
      });
    }

    it('is refused a write with 401, and the write does not happen', async () => {
      const res = await request(`${hub.url}/api/inference/pool/settings`, {
        method: 'PATCH',
        headers: { ...as(qa.key), 'content-type': 'application/json' },
        body: JSON.stringify({ poolEnabled: false }),
      });
      assert.equal(res.statusCode, 401);
      await res.body.dump();
      const mint = await request(`${hub.url}/api/hub/api-keys`, {
        method: 'POST',
        headers: { ...as(qa.key), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'escalate', scope: 'inference' }),
      });
      assert.equal(mint.statusCode, 401);
      await mint.body.dump();
      const { json } = await hub.api<{ poolEnabled: boolean }>('GET', '/api/inference/pool/settings');
      assert.equal(json.poolEnabled, true);
    });

    it('does not let an inference key read status', async () => {
      const res = await request(`${hub.url}/api/inference/pool/status`, { headers: as(inference.key) });
      assert.equal(res.statusCode, 401);
      await res.body.dump();
    });
  });

  describe('keys at rest', () => {
    it('lists keys by id, name and scope with `cihub api-key list`, never with the secret', async () => {
      const text = await runCli(['api-key', 'list'], { dataDir: hub.dataDir });
      assert.equal(text.code, 0, text.stderr);
      for (const name of ['editor', 'short-lived', 'fleet-qa', 'app']) assert.ok(text.stdout.includes(name), `list names ${name}`);
      assert.match(text.stdout, /qa:read/);
      assert.match(text.stdout, /revoked/);
      const json = await runCli(['api-key', 'list', '--json'], { dataDir: hub.dataDir });
      assert.equal(json.code, 0, json.stderr);
      const keys = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
      assert.ok(keys.length >= 4);
      for (const k of keys) {
        assert.deepEqual(Object.keys(k).sort(), ['createdAt', 'id', 'name', 'revokedAt', 'scope']);
      }
      for (const secret of secrets) {
        assert.ok(!text.stdout.includes(secret), 'the list never shows a secret');
        assert.ok(!json.stdout.includes(secret), 'the JSON list never shows a secret');
      }
    });

    it("never writes a key into the Hub's log or its database files", async () => {
      assert.ok(secrets.length >= 5);
      for (const h of [hub, strict]) {
        const db = databaseBytes(h.dataDir);
        assert.ok(db.length > 0);
        for (const secret of secrets) {
          assert.ok(!h.log().includes(secret), 'a key secret reached the Hub log');
          assert.equal(db.indexOf(secret), -1, 'a key secret is stored in the clear');
        }
      }
      // The names, which are not secret, are stored: the search above would have found a secret.
      assert.ok(databaseBytes(hub.dataDir).indexOf('fleet-qa') >= 0);
    });
  });
});
