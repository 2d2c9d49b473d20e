/**
 * Requests the proxy must refuse itself, in the caller's dialect, before placing them: bodies
 * that are not JSON, wrong types, nothing at all, too much, and routes that do not exist.
 * None of them may reach an engine or leave a routing-log row.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

type Dialect = 'openai' | 'ollama';

/** The app-facing routes that place a request on an engine, as the reference lists them. */
const ROUTES: ReadonlyArray<{ path: string; dialect: Dialect; valid: Record<string, unknown> }> = [
  { path: '/v1/chat/completions', dialect: 'openai', valid: { model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }] } },
  { path: '/v1/completions', dialect: 'openai', valid: { model: 'qwen3:8b', prompt: 'hi' } },
  { path: '/v1/embeddings', dialect: 'openai', valid: { model: 'nomic-embed-text', input: 'hi' } },
  { path: '/api/chat', dialect: 'ollama', valid: { model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }] } },
  { path: '/api/generate', dialect: 'ollama', valid: { model: 'qwen3:8b', prompt: 'hi' } },
  { path: '/api/embed', dialect: 'ollama', valid: { model: 'nomic-embed-text', input: 'hi' } },
  { path: '/api/embeddings', dialect: 'ollama', valid: { model: 'nomic-embed-text', prompt: 'hi' } },
];

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The message inside an error body, after checking the body has the dialect's shape. */
function messageOf(dialect: Dialect, text: string): string {
  const body = JSON.parse(text) as { error: unknown };
  if (dialect === 'openai') {
    const error = body.error as { message?: unknown; type?: unknown; code?: unknown };
    assert.equal(typeof error, 'object', `OpenAI-shaped error expected: ${text}`);
    assert.equal(typeof error.message, 'string');
    assert.equal(typeof error.type, 'string');
    assert.equal(typeof error.code, 'string');
    return error.message as string;
  }
  assert.equal(typeof body.error, 'string', `Ollama-shaped error ({ error: string }) expected: ${text}`);
  return body.error as string;
}

async function post(hub: HubProcess, path: string, body: string | Readable, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await request(`${hub.pool}${path}`, { method: 'POST', headers, body });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Chunks of filler produced only as the upload asks for them: the 64 MiB never sit in memory at once. */
async function* oversizedBody(total: number): AsyncGenerator<Buffer> {
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  yield Buffer.from('{"model":"qwen3:8b","prompt":"');
  for (let sent = 0; sent < total; sent += chunk.length) yield chunk;
  yield Buffer.from('"}');
}

/** Sends only the request head of a POST that declares a body over the limit, and returns the status line's code and the body. */
function declareOversized(hub: HubProcess, path: string, contentType = 'application/json'): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(hub.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST /api/inference/pool${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: ${contentType}\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n{"model":`,
      );
    });
    let raw = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer to a declared oversized body; got ${JSON.stringify(raw)}`));
    }, scaled(15_000));
    socket.on('data', (d: Buffer) => {
      raw += d.toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(raw.slice(0, split))?.[1] ?? NaN);
      const body = raw.slice(split + 4);
      if (Buffer.byteLength(body) < length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(raw.slice(9, 12)), body });
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

describe('bad input to the pool proxy', () => {
  let ollama: SimEngine;
  let vllm: SimEngine;
  let hub: HubProcess;

  before(async () => {
    ollama = await startSimEngine({ dialect: 'ollama', models: ['qwen3:8b', { name: 'nomic-embed-text', capabilities: ['embedding'] }], timeScale: 0.01 });
    vllm = await startSimEngine({ dialect: 'vllm', models: ['qwen3:8b'], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url, VLLM_URL: vllm.url } });
  });
  after(async () => {
    await hub?.stop();
    await Promise.all([ollama?.close(), vllm?.close()]);
  });

  /** Nothing refused here may have been placed, logged or forwarded. */
  async function assertNoTrace(): Promise<void> {
    const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
    assert.equal(json.entries.length, 0, `routing-log rows: ${JSON.stringify(json.entries.map((e) => e.path))}`);
    assert.equal(json.summary.totalRecorded, 0);
    assert.equal(ollama.state().requests, 0, 'the Ollama engine was reached');
    assert.equal(vllm.state().requests, 0, 'the vLLM engine was reached');
  }

  for (const route of ROUTES) {
    describe(`POST ${route.path}`, () => {
      it('answers malformed JSON with a 400 that says the body is not JSON', async () => {
        const res = await post(hub, route.path, JSON.stringify(route.valid).slice(0, -3));
        assert.equal(res.status, 400);
        assert.match(messageOf(route.dialect, res.text), /JSON/);
        await assertNoTrace();
      });

      it('answers a body that is JSON but not an object with a 400', async () => {
        const res = await post(hub, route.path, JSON.stringify([route.valid]));
        assert.equal(res.status, 400);
        assert.match(messageOf(route.dialect, res.text), /object/);
        await assertNoTrace();
      });

      it('answers "model": 5 with a 400 naming model', async () => {
        const res = await post(hub, route.path, JSON.stringify({ ...route.valid, model: 5 }));
        assert.equal(res.status, 400);
        assert.match(messageOf(route.dialect, res.text), /model/);
        await assertNoTrace();
      });

      it('answers a body without a model with a 400 naming model', async () => {
        const { model: _dropped, ...rest } = route.valid;
        const res = await post(hub, route.path, JSON.stringify(rest));
        assert.equal(res.status, 400);
        assert.match(messageOf(route.dialect, res.text), /model/);
        await assertNoTrace();
      });

      it('answers "stream": "yes" with a 400 naming stream', async () => {
        const res = await post(hub, route.path, JSON.stringify({ ...route.valid, stream: 'yes' }));
        assert.equal(res.status, 400);
        assert.match(messageOf(route.dialect, res.text), /stream/);
        await assertNoTrace();
      });

      it('answers an empty body with a 400', async () => {
        const res = await post(hub, route.path, '');
        assert.equal(res.status, 400);
        assert.ok(messageOf(route.dialect, res.text).length > 0);
        await assertNoTrace();
      });

      it('answers 413 to a body over 64 MiB that declares its length, without waiting for it', async () => {
        const res = await declareOversized(hub, route.path);
        assert.equal(res.status, 413);
        assert.match(messageOf(route.dialect, res.body), /larger than the 64 MiB/, 'says how much may be sent');
        await assertNoTrace();
      });

      it('answers 413 to a streamed body that grows past 64 MiB', async () => {
        const res = await post(hub, route.path, Readable.from(oversizedBody(MAX_BODY_BYTES + 1)), { 'content-type': 'application/json' });
        assert.equal(res.status, 413);
        assert.match(messageOf(route.dialect, res.text), /larger than the 64 MiB/, 'says how much may be sent');
        await assertNoTrace();
      });
    });
  }

  it("answers an unknown path or a wrong method under the app prefixes with a 404 in the app's dialect, naming the route", async () => {
    const cases: { method: 'GET' | 'POST'; path: string; dialect: Dialect }[] = [
      { method: 'POST', path: '/v1/chat/complete', dialect: 'openai' },
      { method: 'POST', path: '/v1/responses', dialect: 'openai' },
      { method: 'GET', path: '/v1/chat/completions', dialect: 'openai' },
      { method: 'POST', path: '/api/chatter', dialect: 'ollama' },
      { method: 'GET', path: '/api/chat', dialect: 'ollama' },
    ];
    for (const { method, path, dialect } of cases) {
      const res = await request(`${hub.pool}${path}`, {
        method,
        ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3:8b' }) } : {}),
      });
      const text = await res.body.text();
      assert.equal(res.statusCode, 404, `${method} ${path}`);
      // The Ollama client reads error as a string: the operator shape reached its user as "[object Object]".
      const message = messageOf(dialect, text);
      assert.ok(message.includes(`${method} /api/inference/pool${path}`), `404 names ${method} ${path}: ${message}`);
      const relayed = dialect === 'openai' ? '/v1/chat/completions, /v1/completions, /v1/embeddings' : '/api/chat, /api/generate, /api/embed, /api/embeddings';
      assert.ok(message.endsWith(`the pool takes inference at POST ${relayed}`), `404 lists the routes the pool relays in the app's dialect: ${message}`);
      const body = JSON.parse(text) as { code?: string; error: { code?: string } | string };
      assert.equal(typeof body.error === 'string' ? body.code : body.error.code, 'HUB_ERR_NOT_FOUND');
    }
    await assertNoTrace();
  });

  it("answers a malformed %-escape in a path under the app prefixes with a 400 in the app's dialect", async () => {
    for (const { path, dialect } of [
      { path: '/api/tags%E0%A4%A', dialect: 'ollama' },
      { path: '/v1/models/%E0%A4%A', dialect: 'openai' },
    ] as const) {
      const res = await request(`${hub.pool}${path}`);
      const text = await res.body.text();
      assert.equal(res.statusCode, 400, path);
      assert.match(messageOf(dialect, text), /%-escape/, path);
    }
    await assertNoTrace();
  });

  it('answers an unknown route outside the app prefixes with a 404 in the operator shape', async () => {
    for (const path of ['/api/inference/pool/nonsense', '/api/inference/pool/v2/chat/completions', '/api/hub/nonsense']) {
      const res = await hub.api<{ error: { code: string; message: string } }>('GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.json.error.code, 'HUB_ERR_NOT_FOUND');
      assert.ok(res.json.error.message.includes(path));
    }
    await assertNoTrace();
  });

  it('never relays model management: /api/pull and a blob upload answer 404 HUB_ERR_ROUTE_NOT_PROXIED in the Ollama shape', async () => {
    // Ollama addresses blobs by digest: HEAD /api/blobs/:digest asks, POST uploads.
    for (const path of ['/api/pull', '/api/blobs/sha256:29fdb92e57cf0827ded04ae6461b5931d01fa595843f55d36f5b275a52087dd2']) {
      const res = await post(hub, path, JSON.stringify({ model: 'qwen3:8b' }));
      assert.equal(res.status, 404, path);
      assert.match(messageOf('ollama', res.text), /not relayed/);
      assert.equal((JSON.parse(res.text) as { code: string }).code, 'HUB_ERR_ROUTE_NOT_PROXIED', path);
    }
    await assertNoTrace();
  });

  it('refuses a blob upload as not relayed before reading it, whatever its type or size, naming the path it was sent to', async () => {
    const digest = 'sha256:29fdb92e57cf0827ded04ae6461b5931d01fa595843f55d36f5b275a52087dd2';
    const typed = await post(hub, `/api/blobs/${digest}`, 'GGUF\u0003', { 'content-type': 'application/octet-stream' });
    assert.equal(typed.status, 404, typed.text);
    assert.equal((JSON.parse(typed.text) as { code: string }).code, 'HUB_ERR_ROUTE_NOT_PROXIED');
    assert.match(messageOf('ollama', typed.text), new RegExp(`^/api/blobs/${digest} is not relayed`));
    const large = await declareOversized(hub, `/api/blobs/${digest}`, 'application/octet-stream');
    assert.equal(large.status, 404, large.body);
    assert.equal((JSON.parse(large.body) as { code: string }).code, 'HUB_ERR_ROUTE_NOT_PROXIED');
    await assertNoTrace();
  });

  it('still serves a good request afterwards, and that one is logged and reaches the engine', async () => {
    const res = await post(hub, '/v1/chat/completions', JSON.stringify(ROUTES[0]!.valid));
    assert.equal(res.status, 200, res.text);
    const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
    assert.equal(json.summary.totalRecorded, 1);
    assert.equal(ollama.state().requests + vllm.state().requests, 1);
  });
});
