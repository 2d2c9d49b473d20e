/**
 * A Hub starting over a damaged or busy data dir (issue 15, item 3), as real processes: a
 * settings.json that is not JSON, a hub.db that is not a database, and a hub.db another process
 * holds locked. A damaged settings.json costs the operator nothing: it is kept aside, defaults
 * apply and the Hub serves. A locked database costs nothing either: the Hub starts, serves,
 * refuses writes 503 while the lock lasts and writes again once it is let go. A damaged database
 * is the one thing the Hub will not paper over (a fresh one is a new identity every peer would
 * refuse): it stops, says which file and what to do, and leaves the file as it was; so does one a
 * newer cihub wrote, which this build would read and write without knowing its schema. A data dir
 * another live Hub holds is refused before anything in it changes, as is one holding something
 * this account cannot use as a file, and one whose Hub was killed with SIGKILL is not held by anyone.
 * A temporary file a write killed before its rename left is removed at the next start.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { startSimEngine } from '../../src/sim/engine.js';
import { DATABASE_FILE_NAME } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { HUB_LOCK_FILE } from '../../src/config/data-dir-lock.js';
import { eventually, freshDataDir, logMessages, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { serveUntilSettled, spawnServe } from '../helpers/serve-over.js';

const MODEL = 'start:8b';
const POOL = '/api/inference/pool';

async function servesInference(hub: HubProcess): Promise<void> {
  const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
  const answer = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] });
  assert.equal(answer.choices[0]?.message.role, 'assistant');
}

/** Runs `cihub serve` over `dataDir` to its end: for a start that must fail. */
function serveToExit(dataDir: string, port = 0, opts: { fileSizeLimitBlocks?: number } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun) => {
    const child = spawnServe(dataDir, port, opts);
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
    assert.equal(run.code, 2, `exit 2, as every refusal of the data dir: ${run.output}`);
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

  it('refuses to start over a hub.db a newer cihub wrote with exit 2 and one sentence naming it, both schema versions and the way out, and leaves it untouched', async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    await first.stop();
    const dbPath = join(dataDir, DATABASE_FILE_NAME);
    const backup = `${dbPath}.backup`;
    copyFileSync(dbPath, backup);
    // What a later build's start leaves: one more migration applied and recorded.
    const latest = Math.max(...MIGRATIONS.map((m) => m.version));
    const newer = new Database(dbPath);
    newer.transaction(() => {
      newer.exec('CREATE TABLE from_a_later_build (x INTEGER)');
      newer.prepare("INSERT INTO schema_migration (version, name, applied_at) VALUES (?, 'a later build', '2027-01-01T00:00:00.000Z')").run(latest + 1);
    })();
    newer.close();
    const written = readFileSync(dbPath);

    // Until it settles rather than to its exit: a Hub that went on over the file is stopped, and the test fails on what it wrote.
    const run = await serveUntilSettled(dataDir);
    assert.equal(run.listened, false, `the Hub must not start over it; output:\n${run.output}`);
    assert.equal(run.code, 2, `exit 2, as every refusal of the data dir: ${run.output}`);
    const sentence = run.output.trim();
    assert.equal(sentence.split('\n').length, 1, `one line: ${sentence}`);
    assert.ok(sentence.startsWith(`${dbPath} was written by a newer cihub`), `names the file: ${sentence}`);
    assert.ok(sentence.includes(`schema version ${latest + 1}; this cihub knows up to ${latest}`), `names both versions: ${sentence}`);
    assert.match(sentence, /Start the Hub with the newer cihub .* or restore a backup of hub\.db this version wrote\.$/);
    assert.deepEqual(readFileSync(dbPath), written, 'the file is left as the newer cihub wrote it');

    // A backup this version wrote, restored as the message says, starts.
    copyFileSync(backup, dbPath);
    const again = await startHubProcess({ dataDir });
    assert.equal((await again.api('GET', `${POOL}/status`)).status, 200);
    await again.stop();
  });

  it('refuses a second Hub on a data dir a live Hub holds, with exit 2 and one sentence naming the dir and that Hub; the first keeps its hub.json and answers the CLI', async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    try {
      const hubJson = readFileSync(join(dataDir, 'hub.json'), 'utf8');

      const second = await serveUntilSettled(dataDir);
      assert.equal(second.listened, false, `the second Hub must not start; output:\n${second.output}`);
      assert.equal(second.code, 2, second.output);
      const sentence = second.output.trim();
      assert.equal(sentence.split('\n').length, 1, `one line: ${sentence}`);
      assert.ok(sentence.includes(dataDir), `names the data dir: ${sentence}`);
      assert.ok(sentence.includes(`pid ${first.child.pid}`) && sentence.includes(first.url), `names the running Hub: ${sentence}`);

      assert.equal(readFileSync(join(dataDir, 'hub.json'), 'utf8'), hubJson, "the first Hub's hub.json is left as it was");
      const status = await runCli(['pool', 'status'], { dataDir });
      assert.equal(status.code, 0, status.stderr);
    } finally {
      await first.stop();
    }
  });

  it("refuses a second Hub on a live Hub's data dir even when hub.lock was deleted by hand: the Hub hub.json names answers", async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    try {
      unlinkSync(join(dataDir, HUB_LOCK_FILE));
      const second = await serveUntilSettled(dataDir);
      assert.equal(second.listened, false, `the second Hub must not start; output:\n${second.output}`);
      assert.equal(second.code, 2, second.output);
      assert.ok(second.output.includes(`pid ${first.child.pid}`) && second.output.includes(first.url), `names the running Hub: ${second.output}`);
      assert.equal((await runCli(['pool', 'status'], { dataDir })).code, 0, 'the first Hub still answers for its dir');
    } finally {
      await first.stop();
    }
  });

  it('starts over a hub.json naming a live process that is not its Hub: a pid reused since a crash, at an address another Hub answers', async () => {
    const other = await startHubProcess();
    const dataDir = freshDataDir();
    try {
      // The test runner is alive, and the address answers the boot check with another Hub's id.
      const left = { url: other.url, port: Number(new URL(other.url).port), pid: process.pid, startedAt: new Date().toISOString(), bootId: 'left-by-a-crash' };
      writeFileSync(join(dataDir, 'hub.json'), JSON.stringify(left), { mode: 0o600 });
      const run = await serveUntilSettled(dataDir);
      assert.equal(run.listened, true, `the Hub starts: nothing holds its dir; output:\n${run.output}`);
    } finally {
      await other.stop();
    }
  });

  it('refuses a port another program listens on with exit 2 and one sentence naming it and --port, and writes nothing in the data dir', async () => {
    const squatter = createServer();
    await new Promise<void>((listening) => squatter.listen(0, '127.0.0.1', listening));
    try {
      const port = (squatter.address() as AddressInfo).port;
      const dataDir = freshDataDir();
      const run = await serveToExit(dataDir, port);
      assert.deepEqual(readdirSync(dataDir), [], 'no operator.key, settings.json, hub.db, hub.lock or hub.json');
      assert.equal(run.code, 2, run.output);
      const sentence = run.output.trim();
      assert.equal(sentence.split('\n').length, 1, `one line: ${sentence}`);
      assert.match(sentence, new RegExp(`^Port ${port} on 127\\.0\\.0\\.1 is already in use .*--port <another>.* Nothing was written\\.$`));
    } finally {
      await new Promise((closed) => squatter.close(closed));
    }
  });

  it("refuses a second Hub on the port and data dir a live Hub holds by naming that Hub's pid and address, and leaves its hub.json, operator.key and settings.json as they were", async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    try {
      const kept = ['hub.json', 'operator.key', 'settings.json'];
      const before = kept.map((name) => readFileSync(join(dataDir, name), 'utf8'));
      const run = await serveToExit(dataDir, Number(new URL(first.url).port));
      assert.equal(run.code, 2, run.output);
      const sentence = run.output.trim();
      assert.equal(sentence.split('\n').length, 1, `one line: ${sentence}`);
      assert.ok(sentence.includes(`pid ${first.child.pid}`) && sentence.includes(first.url), `names the running Hub: ${sentence}`);
      assert.ok(sentence.endsWith('Nothing was written.'), sentence);
      assert.deepEqual(
        kept.map((name) => readFileSync(join(dataDir, name), 'utf8')),
        before,
      );
    } finally {
      await first.stop();
    }
  });

  it('refuses a data dir holding a directory where hub.db belongs with exit 2 and one sentence naming the file and the account', async () => {
    const dataDir = freshDataDir();
    const dbPath = join(dataDir, DATABASE_FILE_NAME);
    mkdirSync(dbPath);
    const run = await serveToExit(dataDir);
    assert.equal(run.code, 2, run.output);
    const sentence = run.output.trim();
    assert.equal(sentence.split('\n').length, 1, `one line: ${sentence}`);
    assert.ok(sentence.includes(dbPath), `names the file: ${sentence}`);
    assert.ok(sentence.includes(`must be writable by ${userInfo().username}, the user running this Hub`), `names the account: ${sentence}`);
  });

  it('refuses a data dir holding a directory where hub.json belongs with exit 2 and one sentence naming it, and does not stay up listening', async () => {
    const dataDir = freshDataDir();
    const infoPath = join(dataDir, 'hub.json');
    mkdirSync(infoPath);
    const child = spawnServe(dataDir);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    let code: number | null | undefined;
    const closed = new Promise<void>((res) => child.once('close', (c) => res(void (code = c))));
    // hub.json is written once the Hub listens: a Hub that cannot write it must close again, since
    // the CLI would never find it while it kept answering on its port.
    try {
      await eventually(() => code !== undefined, 'the refused start to exit on its own');
    } finally {
      if (code === undefined) child.kill('SIGKILL');
      await closed;
    }
    assert.equal(code, 2, output);
    const sentence = output.trim();
    assert.equal(sentence.split('\n').length, 1, `one line: ${sentence}`);
    assert.ok(sentence.includes(infoPath), `names the file: ${sentence}`);
    assert.ok(sentence.includes(`must be writable by ${userInfo().username}, the user running this Hub`), `names the account: ${sentence}`);
  });

  it('refuses a start whose disk fails the writes opening hub.db takes with exit 2 and one sentence naming hub.db and the disk, and leaves hub.db as it was', async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    await first.stop();
    const dbPath = join(dataDir, DATABASE_FILE_NAME);
    const before = readFileSync(dbPath);
    // SQLite sizes hub.db-shm to 32 KiB as it opens hub.db; past a 16-block file size limit that
    // write fails, and SQLite says only SQLITE_IOERR_SHMSIZE, which is also all it says of a full disk.
    const run = await serveToExit(dataDir, 0, { fileSizeLimitBlocks: 16 });
    assert.equal(run.code, 2, run.output);
    const sentence = run.output.trim().split('\n').at(-1) ?? '';
    assert.ok(sentence.startsWith(`The Hub cannot use ${dbPath} (SQLITE_IOERR`), `names the file and SQLite's code: ${run.output}`);
    assert.ok(sentence.includes(`the disk holding the data dir ${dataDir} failed to read or write it`), `names the disk: ${run.output}`);
    assert.deepEqual(readFileSync(dbPath), before, 'hub.db is as it was');
  });

  it('mints a new operator key over an emptied operator.key and warns that every client needs it again', async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    await first.stop();
    const keyPath = join(dataDir, 'operator.key');
    writeFileSync(keyPath, '', { mode: 0o600 });
    const again = await startHubProcess({ dataDir });
    try {
      assert.notEqual(again.operatorKey, first.operatorKey);
      assert.equal((await again.api('GET', `${POOL}/status`)).status, 200);
      assert.ok(
        logMessages(again.log()).includes(
          `${keyPath} was empty, so a new operator key was minted; the CLI reads it there, and the dashboard and scripts need it again`,
        ),
        again.log(),
      );
    } finally {
      await again.stop();
    }
  });

  it('removes the temporary file a write killed before its rename left in the data dir, and keeps the file it was replacing', async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    await first.stop();
    const settings = readFileSync(join(dataDir, 'settings.json'), 'utf8');
    // The name util/atomic-write gives a temporary file: .<name>.<pid>.<8 hex digits>.tmp
    const leftover = join(dataDir, '.settings.json.4242.0badf00d.tmp');
    writeFileSync(leftover, '{"poolLocalAff', { mode: 0o600 });
    const again = await startHubProcess({ dataDir });
    try {
      assert.equal(existsSync(leftover), false);
      assert.match(again.log(), /removed temporary files an interrupted write left in the data dir/);
      assert.equal(readFileSync(join(dataDir, 'settings.json'), 'utf8'), settings);
    } finally {
      await again.stop();
    }
  });

  it('refuses a start whose leftover temporary file cannot be removed with exit 2 and one sentence naming it', async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    await first.stop();
    // A read-only disk refuses the removal (EROFS); a directory under a temporary file's name is
    // refused too, on any disk and for any account.
    const leftover = join(dataDir, `.settings.json.${process.pid}.0badf00d.tmp`);
    mkdirSync(join(leftover, 'inside'), { recursive: true });
    const run = await serveToExit(dataDir);
    assert.equal(run.code, 2, run.output);
    const sentence = run.output.trim();
    assert.equal(sentence.split('\n').length, 1, `one line: ${sentence}`);
    assert.ok(sentence.startsWith(`The Hub cannot use ${leftover} (it is a directory, not a file)`), sentence);
  });

  it('starts on a data dir whose Hub was killed with SIGKILL: a dead Hub holds nothing', async () => {
    const dataDir = freshDataDir();
    const first = await startHubProcess({ dataDir });
    assert.equal(await first.stop('SIGKILL'), null);
    assert.ok(existsSync(join(dataDir, 'hub.json')), 'the killed Hub left its hub.json behind');
    const again = await startHubProcess({ dataDir });
    try {
      assert.equal((await again.api('GET', `${POOL}/status`)).status, 200);
      assert.equal((await runCli(['pool', 'status'], { dataDir })).code, 0);
    } finally {
      await again.stop();
    }
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
