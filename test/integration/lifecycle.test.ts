/**
 * A Hub's life on disk and in the process table: what the first start creates, what its log
 * looks like (and never contains), a SIGTERM that drains a stream before exiting, a restart
 * that keeps its credentials, and the CLI when no Hub is there to answer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { Client, request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { SPEC_DEFAULT_SETTINGS } from '../helpers/spec-defaults.js';
import { eventually, freshDataDir, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'qwen3:8b';
/** Decodes one token per 10 simulated seconds: a 12-token answer streams over ~1.2 s of wall time at this scale. */
const SLOW = 'slow-decode:1b';

const DEFAULT_SETTINGS = SPEC_DEFAULT_SETTINGS;

/** A port nothing listens on: bound once by this process, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * A connection that has sent the first bytes of a chat request and stops mid-header. The server
 * counts it as busy (a message has begun), so draining neither closes it as idle nor refuses it:
 * the rest of the request arrives, and is judged, after SIGTERM.
 */
async function halfSentChat(url: string): Promise<() => Promise<string>> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], stream: false });
  socket.write(`POST /api/inference/pool/api/chat HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`);
  return async (): Promise<string> => {
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    await ended;
    return answer;
  };
}

/** Whether a brand-new connection to the Hub is refused (or, on one it still holds open, answered 503). */
async function refusesNewRequests(url: string): Promise<boolean> {
  const client = new Client(url);
  try {
    const res = await client.request({ method: 'GET', path: '/api/inference/pool/identify' });
    await res.body.dump();
    return res.statusCode === 503;
  } catch (err) {
    return (err as { code?: string }).code === 'ECONNREFUSED';
  } finally {
    await client.destroy();
  }
}

function assertOneSentenceOnStderr(res: { code: number | null; stdout: string; stderr: string }): void {
  assert.notEqual(res.code, 0);
  assert.equal(res.stdout, '');
  const lines = res.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${res.stderr}`);
  assert.doesNotMatch(res.stderr, /^\s*at /m, 'no stack trace');
  assert.doesNotMatch(res.stderr, /Error:|node:internal/);
}

describe('a Hub from first start to SIGTERM', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  let dataDir: string;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL, { name: SLOW, decodeTps: 0.1 }], timeScale: 0.01 });
    // A data dir that does not exist yet, two levels down: the Hub has to make it.
    dataDir = join(freshDataDir(), 'not', 'yet');
    assert.equal(existsSync(dataDir), false);
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url }, dataDir });
  });
  after(async () => {
    await hub?.stop('SIGKILL');
    await engine?.close();
  });

  it('creates its data dir with hub.db, default settings.json, a private operator.key and hub.json', () => {
    assert.ok(statSync(dataDir).isDirectory());
    assert.equal(statSync(dataDir).mode & 0o077, 0, 'the data dir is private to its owner');
    assert.ok(statSync(join(dataDir, 'hub.db')).size > 0);
    assert.deepEqual(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')), DEFAULT_SETTINGS);
    const keyPath = join(dataDir, 'operator.key');
    assert.equal(statSync(keyPath).mode & 0o777, 0o600);
    const keyText = readFileSync(keyPath, 'utf8');
    assert.equal(keyText.trimEnd().split('\n').length, 1, 'the operator key is one line');
    assert.equal(keyText.trim(), hub.operatorKey);
    assert.ok(hub.operatorKey.length >= 32);
    const info = JSON.parse(readFileSync(join(dataDir, 'hub.json'), 'utf8')) as { url: string; port: number; pid: number };
    assert.equal(info.url, hub.url);
    assert.equal(info.pid, hub.child.pid);
    assert.equal(new URL(info.url).port, String(info.port));
  });

  it("writes its log as JSON, one event per line, and never a prompt, a body or an engine's error text", async () => {
    const marker = `marker-${randomUUID()}`;
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'ollama', maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: `please repeat ${marker}` }] });
    assert.ok((completion.choices[0]?.message.content ?? '').length > 0);
    const streamed = await request(`${hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: marker }] }),
    });
    assert.equal(streamed.statusCode, 200);
    await streamed.body.text();
    const broken = await request(`${hub.pool}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"model":"${MODEL}","prompt":"${marker}`,
    });
    assert.equal(broken.statusCode, 400);
    await broken.body.dump();
    const missing = await request(`${hub.pool}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'missing:1b', prompt: marker }),
    });
    assert.equal(missing.statusCode, 502);
    await missing.body.dump();
    // An engine whose error quotes the prompt back: the app may see it, the log must not.
    await engine.setFault({ mode: 'error', status: 500, model: MODEL, count: 1, body: JSON.stringify({ error: `cannot handle ${marker}` }) });
    const faulted = await request(`${hub.pool}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, prompt: marker, stream: false }),
    });
    assert.equal(faulted.statusCode, 502);
    await faulted.body.dump();
    assert.equal(engine.state().faults.length, 0, 'the fault was used');

    const output = hub.log();
    assert.ok(!output.includes(marker), "the prompt marker appeared in the Hub's output");
    const lines = output.split('\n').filter((l) => l.length > 0);
    assert.ok(lines.length >= 2);
    for (const line of lines) {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(line) as Record<string, unknown>;
      } catch {
        assert.fail(`not a JSON log line: ${line}`);
      }
      assert.equal(typeof event.level, 'number', line);
      assert.equal(typeof event.time, 'string', line);
      assert.equal(typeof event.msg, 'string', line);
    }
    assert.ok(
      lines.some((l) => (JSON.parse(l) as { url?: string }).url === hub.url),
      'a line says where the Hub listens',
    );
  });

  it('on SIGTERM finishes the stream in flight, refuses new requests, then exits 0 and removes hub.json', async () => {
    const res = await request(`${hub.pool}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: SLOW, messages: [{ role: 'user', content: 'take your time' }] }),
    });
    assert.equal(res.statusCode, 200);
    const frames: Array<{ done?: boolean }> = [];
    let streamEnded = false;
    const reading = (async () => {
      let buffered = '';
      for await (const chunk of res.body) {
        buffered += (chunk as Buffer).toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line) frames.push(JSON.parse(line) as { done?: boolean });
        }
      }
      streamEnded = true;
    })();
    await eventually(() => frames.length > 0, 'the first stream frame');

    const finishLate = await halfSentChat(hub.url);
    const exited = hub.stop('SIGTERM');
    await eventually(() => refusesNewRequests(hub.url), 'new requests to be refused', 3_000);
    assert.equal(streamEnded, false, 'new requests are refused while the stream is still running');
    // A routed POST finished on a connection opened before SIGTERM is refused too, not served:
    // the proxy's own front door, ahead of Fastify, must see the drain as well.
    const lateAnswer = await finishLate();
    assert.match(lateAnswer, /^HTTP\/1\.1 503 /, lateAnswer.split('\r\n')[0]);
    assert.match(lateAnswer, /HUB_ERR_SHUTTING_DOWN/);

    await reading;
    assert.equal(frames.at(-1)?.done, true, 'the stream ends on its final frame');
    assert.ok(frames.length > 2);
    // Once nothing is in flight the Hub exits promptly; an idle keep-alive connection must not hold it until the drain timeout.
    // Not scaled: the bound must stay under the 30 s drain timeout for the check to mean anything.
    const exitCode = await Promise.race([exited, sleep(20_000).then(() => 'still running 20 s after the stream ended')]);
    assert.equal(exitCode, 0);
    assert.equal(existsSync(join(dataDir, 'hub.json')), false, 'hub.json is removed on the way out');
    assert.ok(existsSync(join(dataDir, 'operator.key')), 'the credentials stay');
  });
});

describe('a second start on the same data dir', () => {
  let engine: SimEngine;
  let first: HubProcess | undefined;
  let second: HubProcess | undefined;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
  });
  after(async () => {
    await first?.stop('SIGKILL');
    await second?.stop('SIGKILL');
    await engine?.close();
  });

  it('keeps the operator key, the API keys and the settings', async () => {
    first = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
    const created = await runCli(['api-key', 'create', '--name', 'survivor', '--scope', 'inference', '--yes', '--json'], { dataDir: first.dataDir });
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout) as { id: string; key: string };
    assert.equal((await first.api('PATCH', '/api/inference/pool/settings', { poolLocalAffinity: 7 })).status, 200);
    assert.equal(await first.stop('SIGTERM'), 0);

    second = await startHubProcess({ env: { OLLAMA_URL: engine.url }, dataDir: first.dataDir });
    assert.notEqual(second.child.pid, first.child.pid);
    assert.equal(second.operatorKey, first.operatorKey);
    assert.equal((await second.api('GET', '/api/inference/pool/status')).status, 200, 'the kept operator key still works');
    const listed = await runCli(['api-key', 'list', '--json'], { dataDir: second.dataDir });
    assert.equal(listed.code, 0, listed.stderr);
    const keys = JSON.parse(listed.stdout) as Array<{ id: string; name: string; revokedAt: string | null }>;
    assert.deepEqual(
      keys.map((k) => [k.id, k.name, k.revokedAt]),
      [[key.id, 'survivor', null]],
    );
    const outside = await request(`${second.pool}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${key.key}` },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'still me' }] }),
    });
    assert.equal(outside.statusCode, 200, 'the key minted before the restart still admits its caller');
    await outside.body.dump();
    const { json } = await second.api<{ poolLocalAffinity: number }>('GET', '/api/inference/pool/settings');
    assert.equal(json.poolLocalAffinity, 7);
  });
});

describe('the CLI without a running Hub', () => {
  it('says in one sentence that no Hub is running for an empty data dir', async () => {
    const dataDir = freshDataDir();
    for (const args of [
      ['pool', 'status'],
      ['pool', 'status', '--json'],
      ['pool', 'log'],
    ]) {
      const res = await runCli(args, { dataDir });
      assertOneSentenceOnStderr(res);
      assert.match(res.stderr, /No Hub is running/);
    }
  });

  it('names the data dir in the command that starts a Hub, unless it is the one a bare `cihub serve` takes', async () => {
    const dataDir = freshDataDir();
    const named = await runCli(['pool', 'status'], { dataDir });
    assert.equal(named.code, 3, named.stderr);
    assert.match(named.stderr, new RegExp(`Start one with \`cihub serve --data-dir ${dataDir}\`\\.$`, 'm'));
    // No --data-dir and no CIHUB_DATA_DIR: ~/.cihub (HOME is dataDir here), which `cihub serve` takes too.
    const home = await runCli(['pool', 'status'], { dataDir, dataDirFlag: false });
    assert.equal(home.code, 3, home.stderr);
    assert.match(home.stderr, /Start one with `cihub serve`\.$/m);
  });

  it('says in one sentence that the Hub is not answering when hub.json outlived its process', async () => {
    const dataDir = freshDataDir();
    const port = await closedPort();
    writeFileSync(join(dataDir, 'operator.key'), 'cihub_op_left-behind\n', { mode: 0o600 });
    writeFileSync(join(dataDir, 'hub.json'), JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid: 2 ** 22 + 1, startedAt: new Date().toISOString() }));
    for (const args of [
      ['pool', 'status'],
      ['pool', 'log', '--json'],
      ['pool', 'disable', '--yes'],
    ]) {
      const res = await runCli(args, { dataDir });
      assertOneSentenceOnStderr(res);
      assert.match(res.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`), 'it names where it looked');
    }
  });
});

describe('cihub usage', () => {
  it('lists the pool commands in `cihub --help`', async () => {
    const res = await runCli(['--help'], { dataDir: freshDataDir() });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^\s+pool\b/m);
    for (const command of ['status', 'log', 'enable', 'disable']) {
      assert.match(res.stdout, new RegExp(`^\\s+${command}\\b`, 'm'), `help lists pool ${command}`);
    }
  });

  it('fails `cihub pool bogus` with a short message naming the unknown command', async () => {
    const res = await runCli(['pool', 'bogus'], { dataDir: freshDataDir() });
    assert.notEqual(res.code, 0);
    assert.equal(res.stdout, '');
    const lines = res.stderr.split('\n').filter((l) => l.trim().length > 0);
    assert.match(lines[0] ?? '', /unknown command 'bogus'/);
    assert.ok(lines.length <= 15, `short, got ${lines.length} lines:\n${res.stderr}`);
    assert.doesNotMatch(res.stderr, /^\s*at /m);
  });
});
