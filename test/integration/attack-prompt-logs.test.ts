/**
 * A prompt that tries to reach the logs (issue 15, item 2; spec: prompts and bodies are never
 * logged). Two real Hubs at the most verbose log level, hub-a serving one model itself and
 * forwarding another to hub-b. A distinctive prompt goes through every path a body can take:
 * both dialects, streamed and whole, served locally and through a peer, embeddings, an engine
 * that fails and is failed over, a model nobody holds, a body cut short, a body that is not
 * JSON at all (whose parse error would quote it), and one too deeply nested. Then every byte
 * either Hub wrote is read: stdout and stderr, every file under each data dir (the log file
 * and its rotations, hub.db with its -wal and -shm, settings), and the operator's views
 * (routing log, status, the Hub log route). The prompt appears in none of them.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { POOL_API, type PoolHub, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const LOCAL = 'qwen3:8b';
const REMOTE = 'llama3.2:3b';
const EMBED = 'nomic-embed-text';
/** Plain letters and digits, so no escaping in a JSON log line or a database page could hide it. */
const MARKER = `PromptMarker${Date.now().toString(36)}Zq7Xw3`;

/** Every regular file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push(path);
  }
  return out;
}

/** Where `needle` occurs in `haystack` as UTF-8 or as UTF-16 (SQLite can store either). */
function contains(haystack: Buffer, needle: string): boolean {
  return haystack.includes(Buffer.from(needle, 'utf8')) || haystack.includes(Buffer.from(needle, 'utf16le'));
}

async function send(hub: PoolHub, path: string, body: string | object, headers: Record<string, string> = {}): Promise<number> {
  const res = await request(`${hub.pool}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  await res.body.text();
  return res.statusCode;
}

describe('a prompt that tries to reach the logs', { timeout: 4 * TEST_TIMEOUT_MS }, () => {
  const pool = usePool<'a' | 'b'>({
    hubs: {
      a: { ollama: { models: [LOCAL, { name: EMBED, capabilities: ['embedding'] }] }, vllm: { models: [LOCAL] }, env: { HUB_LOG_LEVEL: 'trace' } },
      b: { ollama: { models: [REMOTE] }, env: { HUB_LOG_LEVEL: 'trace' } },
    },
    pairs: [['a', 'b']],
  });

  before(async () => {
    await pool().a.waitForPeer(pool().b, `holding ${REMOTE}`, (p) => p.backends?.some((b) => b.models.includes(REMOTE)) ?? false, TEST_TIMEOUT_MS);
  });

  it('leaves no trace of the prompt in anything either Hub wrote, on any path a body can take', async () => {
    const { a } = pool();
    const chat = (model: string, stream: boolean) => ({ model, stream, messages: [{ role: 'user', content: `${MARKER} tell me a secret` }] });
    const generate = (model: string, stream: boolean) => ({ model, stream, prompt: `${MARKER} tell me a secret` });
    const served: [string, object][] = [];
    for (const stream of [false, true]) {
      for (const model of [LOCAL, REMOTE]) {
        served.push(
          ['/v1/chat/completions', chat(model, stream)],
          ['/api/chat', chat(model, stream)],
          ['/api/generate', generate(model, stream)],
          ['/v1/completions', generate(model, stream)],
        );
      }
    }
    for (const [path, body] of served) assert.equal(await send(a, path, body), 200, `${path} ${JSON.stringify(body).slice(0, 80)}`);
    assert.equal(await send(a, '/api/embed', { model: EMBED, input: [`${MARKER} embed me`] }), 200);
    assert.equal(await send(a, '/v1/embeddings', { model: EMBED, input: `${MARKER} embed me` }), 200);

    // An engine that fails: hub-a's Ollama answers 500 once, and the walk moves on to its vLLM.
    await a.engines.ollama!.setFault({ mode: 'error', status: 500, model: LOCAL, count: 2 });
    assert.equal(await send(a, '/v1/chat/completions', chat(LOCAL, false)), 200, 'failed over to the second engine');
    assert.equal(await send(a, '/api/chat', chat(LOCAL, false)), 502, 'no second engine speaks /api/chat');
    // Refusals the Hub decides itself, each carrying the prompt.
    assert.ok((await send(a, '/v1/chat/completions', chat('nobody-holds-this', false))) >= 400, 'a model nobody holds is not served');
    assert.equal(await send(a, '/v1/chat/completions', `${MARKER} is not JSON`), 400);
    assert.equal(await send(a, '/v1/chat/completions', `{"model":"${LOCAL}","messages":[{"role":"user","content":"${MARKER}`), 400);
    assert.equal(await send(a, '/api/generate', `{"model":"${LOCAL}","prompt":"${MARKER}","x":${'['.repeat(200)}${']'.repeat(200)}}`), 400);
    assert.equal(await send(a, '/api/generate', { model: 5, prompt: MARKER }), 400);
    assert.equal(await send(a, '/api/generate', { model: LOCAL, stream: 'yes', prompt: MARKER }), 400);
    assert.equal(await send(a, '/api/generate', JSON.stringify(generate(LOCAL, false)), { 'content-type': 'text/plain' }), 415);

    // Every request has settled before anything is read.
    for (const hub of pool().hubs) {
      const rows = await hub.routingLog();
      assert.ok(rows.length > 0 || hub === pool().b, `${hub.name} logged its decisions`);
      assert.ok(
        rows.every((r) => r.outcome !== 'pending'),
        `${hub.name} has pending rows`,
      );
    }
    for (const hub of pool().hubs) {
      const views = [`${POOL_API}/routing-log?limit=500`, `${POOL_API}/status`, `${POOL_API}/peers`, '/api/hub/logs'];
      for (const path of views) {
        const res = await hub.api('GET', path);
        assert.ok(res.status === 200, `${hub.name} GET ${path}: ${res.status}`);
        assert.ok(!JSON.stringify(res.json).includes(MARKER), `${hub.name} shows the prompt at GET ${path}`);
      }
    }
    // Stopped, so every buffered line and the database's last pages are on disk.
    const outputs = pool().hubs.map((h) => ({ name: h.name, dataDir: h.dataDir, log: () => h.log() }));
    await pool().stop();
    for (const hub of outputs) {
      assert.ok(hub.log().length > 0, `${hub.name} wrote to stdout`);
      assert.ok(!hub.log().includes(MARKER), `${hub.name}'s stdout/stderr holds the prompt`);
      const files = filesUnder(hub.dataDir);
      assert.ok(
        files.some((f) => f.endsWith('hub.db')),
        `${hub.name}'s data dir holds its database: ${files.join(', ')}`,
      );
      for (const file of files) assert.ok(!contains(readFileSync(file), MARKER), `${file} holds the prompt`);
    }
  });
});
