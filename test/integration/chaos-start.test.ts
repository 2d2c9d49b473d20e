/**
 * A Hub starting over a damaged or busy data dir (issue 15, item 3), as real processes: a
 * settings.json that is not JSON, a hub.db that is not a database, and a hub.db another process
 * holds locked. A damaged settings.json costs the operator nothing: it is kept aside, defaults
 * apply and the Hub serves. A locked database costs nothing either: the Hub starts, serves,
 * refuses writes 503 while the lock lasts and writes again once it is let go. A damaged database
 * is the one thing the Hub will not paper over (a fresh one is a new identity every peer would
 * refuse): it stops, says which file and what to do, and leaves the file as it was.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { startSimEngine } from '../../src/sim/engine.js';
import { DATABASE_FILE_NAME } from '../../src/store/database.js';
import { CIHUB_BIN, freshDataDir, pathWithoutTailscale, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'start:8b';
const POOL = '/api/inference/pool';

async function servesInference(hub: HubProcess): Promise<void> {
  const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
  const answer = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] });
  assert.equal(answer.choices[0]?.message.role, 'assistant');
}

/** Runs `cihub serve` over `dataDir` to its end: for a start that must fail. */
function serveToExit(dataDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [CIHUB_BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      env: { PATH: pathWithoutTailscale(), HOME: dataDir, OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('close', (code) => resolveRun({ code, output }));
  });
}

describe('a Hub starting over a damaged or busy data dir', () => {
  it('starts over a settings.json that is not JSON: keeps the file aside, applies defaults, serves, and saves the next change', async () => {
    const engine = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    const dataDir = freshDataDir();
    const damaged = '{"poolHealthPollSeconds": 45, "poolLocalAffinity": ';
    writeFileSync(join(dataDir, 'settings.json'), damaged, { mode: 0o600 });
    const hub = await startHubProcess({ dataDir, env: { VLLM_URL: engine.url } });
    try {
      const aside = readdirSync(dataDir).filter((f) => f.startsWith('settings.json.invalid-'));
      assert.equal(aside.length, 1, 'the damaged file is kept aside');
      assert.equal(readFileSync(join(dataDir, aside[0]!), 'utf8'), damaged, 'byte for byte');
      assert.match(hub.log(), /settings\.json was not valid JSON/);
      const settings = await hub.api<{ poolHealthPollSeconds: number }>('GET', `${POOL}/settings`);
      assert.equal(settings.json.poolHealthPollSeconds, 30, 'the default is in force');
      await servesInference(hub);
      assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 45 })).status, 200);
      assert.equal(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).poolHealthPollSeconds, 45);
    } finally {
      await hub.stop();
      await engine.close();
    }
  });

  it('refuses to start over a hub.db that is not a database, naming it and the way out, and leaves it untouched', async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    await first.stop();
    const dbPath = join(dataDir, DATABASE_FILE_NAME);
    for (const side of ['-wal', '-shm']) if (existsSync(dbPath + side)) renameSync(dbPath + side, `${dbPath}${side}.old`);
    const garbage = Buffer.from('this was a database once, until the disk lost its first pages '.repeat(200));
    writeFileSync(dbPath, garbage);

    const run = await serveToExit(dataDir);
    assert.equal(run.code, 1, run.output);
    assert.ok(run.output.includes(dbPath), `the message names the file: ${run.output}`);
    assert.match(run.output, /damaged \(SQLITE_NOTADB\)/);
    assert.match(run.output, /Restore it from a backup/);
    assert.match(run.output, /pair it again/);
    assert.deepEqual(readFileSync(dbPath), garbage, 'the damaged file is left as it was');

    // Moved aside, as the message says, the Hub starts afresh.
    renameSync(dbPath, `${dbPath}.damaged`);
    const again = await startHubProcess({ dataDir });
    assert.equal((await again.api('GET', `${POOL}/status`)).status, 200);
    await again.stop();
  });

  it('starts while another process holds hub.db locked, serves, refuses writes 503, and writes once the lock is let go', async () => {
    const engine = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    await first.stop();
    const locker = new Database(join(dataDir, DATABASE_FILE_NAME));
    locker.exec('BEGIN EXCLUSIVE');
    let hub: HubProcess | null = null;
    try {
      hub = await startHubProcess({ dataDir, env: { VLLM_URL: engine.url } });
      await servesInference(hub);
      const refused = await hub.api<{ error: { code: string } }>('POST', '/api/hub/api-keys', { name: 'while-locked', scope: 'inference' });
      assert.equal(refused.status, 503, JSON.stringify(refused.json));
      assert.equal(refused.json.error.code, 'HUB_ERR_STORE_UNAVAILABLE');
      locker.exec('COMMIT');
      const created = await hub.api('POST', '/api/hub/api-keys', { name: 'after-lock', scope: 'inference' });
      assert.equal(created.status, 201, JSON.stringify(created.json));
    } finally {
      if (locker.inTransaction) locker.exec('COMMIT');
      locker.close();
      await hub?.stop();
      await engine.close();
    }
  });
});
