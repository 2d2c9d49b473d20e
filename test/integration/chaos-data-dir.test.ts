/**
 * The data dir failing under a running Hub (issue 15, item 3), on real filesystems mounted for
 * the test (CI runs as root; without root these tests fail, saying so): a disk that fills up,
 * and a disk the kernel turns read-only. The Hub stays up, keeps serving inference, answers
 * what needed a write 503 HUB_ERR_STORE_UNAVAILABLE (a condition of the machine, retryable, never
 * a 500), and keeps no half-written file; once space is back it writes again with no one acting,
 * and once the disk is repaired and remounted it comes back with everything it had. Stopping
 * on a read-only disk is still a clean stop (exit 0), though hub.json stays behind. A start on
 * a disk already read-only that has a settings.json to write is refused as any data dir this
 * account cannot write is: exit 2 and one sentence naming the file and the read-only disk; so is a
 * start on a full disk, naming the full disk. A Hub that has never made its identity answers a PIN
 * on a full disk with the disk's fix, and mints one as soon as space is freed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { CIHUB_BIN, eventually, pathWithoutTailscale, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { mountedReadOnly, mountExt4Loop, mountTmpfs, type TestMount } from '../helpers/chaos.js';

const MODEL = 'disk:8b';
const POOL = '/api/inference/pool';
/** Attempts at a write before a full disk must have refused one: each key row grows the WAL by a page or more. */
const WRITES_TO_FILL = 500;

function alive(hub: HubProcess): boolean {
  return hub.child.exitCode === null && hub.child.signalCode === null;
}

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

function assertRefusedAsReadOnly(run: { code: number | null; output: string }, path: string, dataDir: string): void {
  assert.equal(run.code, 2, run.output);
  const sentence = run.output.trim().split('\n').at(-1) ?? '';
  assert.ok(sentence.includes(path), `names the file: ${run.output}`);
  assert.ok(sentence.includes(`the disk holding the data dir ${dataDir} is read-only to this Hub`), `names the read-only disk: ${run.output}`);
}

type ErrorBody = { error?: { code?: string; message?: string } };

/** Creates an inference key; the answer, whatever it is. */
function createKey(hub: HubProcess, name: string) {
  return hub.api<ErrorBody & { id?: string }>('POST', '/api/hub/api-keys', { name, scope: 'inference' });
}

/** Fills the filesystem holding `dir` until it refuses another byte. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    closeSync(fd);
  }
  return path;
}

describe('a data dir whose disk fills up while the Hub runs', () => {
  let disk: TestMount;
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    disk = mountTmpfs(8 * 1024 * 1024);
    engine = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ dataDir: disk.dataDir, env: { VLLM_URL: engine.url } });
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
    disk?.unmount();
  });

  it('keeps serving, refuses writes 503 while full, keeps settings.json whole, and writes again once space is freed', async () => {
    const settingsBefore = (await hub.api<Record<string, unknown>>('GET', `${POOL}/settings`)).json;
    // The filler sits beside the data dir, on the same disk.
    const filler = fill(join(disk.dataDir, '..'));

    let refused: { status: number; json: ErrorBody } | null = null;
    for (let i = 0; i < WRITES_TO_FILL && refused === null; i++) {
      const res = await createKey(hub, `full-${i}`);
      if (res.status === 503) refused = res;
      else assert.equal(res.status, 201, `a write either lands or is refused 503: ${JSON.stringify(res.json)}`);
    }
    assert.ok(refused, `a write was refused within ${WRITES_TO_FILL} attempts on a full disk`);
    assert.equal(refused.json.error?.code, 'HUB_ERR_STORE_UNAVAILABLE');

    const patched = await hub.api<ErrorBody>('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 45 });
    assert.equal(patched.status, 503, `a settings change on a full disk is refused 503: ${JSON.stringify(patched.json)}`);
    assert.equal(patched.json.error?.code, 'HUB_ERR_STORE_UNAVAILABLE');
    assert.deepEqual(JSON.parse(readFileSync(join(disk.dataDir, 'settings.json'), 'utf8') || '{}').poolHealthPollSeconds, settingsBefore.poolHealthPollSeconds);

    await servesInference(hub);
    assert.equal((await hub.api('GET', `${POOL}/status`)).status, 200);
    assert.ok(alive(hub), `the Hub is still running; log:\n${hub.log().slice(-2000)}`);

    rmSync(filler);
    const created = await eventually(async () => {
      const res = await createKey(hub, 'after-space-freed');
      return res.status === 201 ? res : null;
    }, 'a write to land once space is freed');
    assert.ok(created.json.id);
    const patchedAgain = await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 45 });
    assert.equal(patchedAgain.status, 200, JSON.stringify(patchedAgain.json));
    await servesInference(hub);
  });
});

describe('a Hub that has never made its identity, on a disk that fills up', () => {
  let disk: TestMount;
  let hub: HubProcess;

  before(async () => {
    disk = mountTmpfs(8 * 1024 * 1024);
    hub = await startHubProcess({ dataDir: disk.dataDir });
  });
  after(async () => {
    await hub?.stop();
    disk?.unmount();
  });

  it("refuses a PIN with the full disk's fix, not the secret's, and mints one as soon as space is freed", async () => {
    const filler = fill(join(disk.dataDir, '..'));
    const refused = await hub.api<ErrorBody & { error?: { identityCause?: string } }>('POST', `${POOL}/pairing-pin`);
    assert.equal(refused.status, 503, JSON.stringify(refused.json));
    assert.equal(refused.json.error?.code, 'HUB_ERR_IDENTITY_UNAVAILABLE');
    assert.equal(refused.json.error?.identityCause, 'disk-refused');
    const message = refused.json.error?.message ?? '';
    assert.match(message, /identity\.secret cannot be used: it cannot be created: ENOSPC/);
    assert.match(message, /Fix: free space on the disk holding the data dir/);
    assert.doesNotMatch(message, /write a secret|remove that file/);

    rmSync(filler);
    // At once: the retry timer would make it only up to 30 s later.
    const minted = await hub.api<ErrorBody & { pin?: string }>('POST', `${POOL}/pairing-pin`);
    assert.equal(minted.status, 200, JSON.stringify(minted.json));
    assert.match(minted.json.pin ?? '', /^\d{6}$/);
  });
});

describe('a data dir the kernel turns read-only while the Hub runs', () => {
  let disk: ReturnType<typeof mountExt4Loop>;
  let engine: SimEngine;
  let hub: HubProcess;
  let keyId: string;

  before(async () => {
    disk = mountExt4Loop(32 * 1024 * 1024);
    engine = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    hub = await startHubProcess({ dataDir: disk.dataDir, env: { VLLM_URL: engine.url } });
    const created = await createKey(hub, 'before-read-only');
    assert.equal(created.status, 201, JSON.stringify(created.json));
    keyId = created.json.id!;
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
    disk?.unmount();
  });

  it('keeps serving and refuses writes 503 once the disk is read-only', async () => {
    // What the Hub wrote before is on the disk itself, not only in the page cache the failure discards.
    execFileSync('sync');
    disk.failFilesystem();
    assert.ok(mountedReadOnly(disk.dataDir), 'the kernel remounted the disk read-only');

    const refused = await createKey(hub, 'while-read-only');
    assert.equal(refused.status, 503, JSON.stringify(refused.json));
    assert.equal(refused.json.error?.code, 'HUB_ERR_STORE_UNAVAILABLE');
    const patched = await hub.api<ErrorBody>('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 45 });
    assert.equal(patched.status, 503, JSON.stringify(patched.json));
    assert.equal(patched.json.error?.code, 'HUB_ERR_STORE_UNAVAILABLE');

    await servesInference(hub);
    const keys = await hub.api<{ keys: { id: string }[] }>('GET', '/api/hub/api-keys');
    assert.equal(keys.status, 200, 'reads still answer');
    assert.ok(alive(hub), `the Hub is still running; log:\n${hub.log().slice(-2000)}`);
  });

  it('stops on SIGTERM with exit 0 while the disk is read-only, saying hub.json could not be removed', async () => {
    assert.ok(mountedReadOnly(disk.dataDir), 'the disk is still read-only');
    assert.equal(await hub.stop('SIGTERM'), 0, `exit code; log:\n${hub.log().slice(-2000)}`);
    assert.match(hub.log(), /hub\.json could not be removed/);
    assert.match(hub.log(), /"msg":"hub stopped"/);
  });

  it('comes back with everything it had once the disk is repaired and mounted again', async () => {
    await hub.stop();
    disk.remount();
    hub = await startHubProcess({ dataDir: disk.dataDir, env: { VLLM_URL: engine.url } });
    const keys = await hub.api<{ keys: { id: string }[] }>('GET', '/api/hub/api-keys');
    assert.ok(
      keys.json.keys.some((k) => k.id === keyId),
      'the key made before the failure is still there',
    );
    assert.equal((await createKey(hub, 'after-repair')).status, 201);
    await servesInference(hub);
  });
});

describe('a Hub started on a data dir whose disk is read-only already', () => {
  let disk: ReturnType<typeof mountExt4Loop>;
  let settingsPath: string;

  before(async () => {
    disk = mountExt4Loop(32 * 1024 * 1024);
    settingsPath = join(disk.dataDir, 'settings.json');
    const first = await startHubProcess({ dataDir: disk.dataDir });
    assert.equal(await first.stop(), 0);
  });
  after(() => disk?.unmount());

  it('refuses with exit 2 and a sentence naming settings.json when it is missing and must be written', async () => {
    rmSync(settingsPath);
    execFileSync('sync');
    disk.failFilesystem();
    assert.ok(mountedReadOnly(disk.dataDir), 'the kernel remounted the disk read-only');
    assertRefusedAsReadOnly(await serveToExit(disk.dataDir), settingsPath, disk.dataDir);
  });

  it('refuses with exit 2 and a sentence naming settings.json when it is not JSON and must be moved aside', async () => {
    disk.remount();
    writeFileSync(settingsPath, '{"poolHealthPoll', { mode: 0o600 });
    execFileSync('sync');
    disk.failFilesystem();
    assert.ok(mountedReadOnly(disk.dataDir), 'the kernel remounted the disk read-only');
    assertRefusedAsReadOnly(await serveToExit(disk.dataDir), settingsPath, disk.dataDir);
    assert.equal(readFileSync(settingsPath, 'utf8'), '{"poolHealthPoll', 'the file is left as it was');
  });
});

describe('a Hub started on a data dir whose disk is full already', () => {
  let disk: TestMount;

  before(() => {
    disk = mountTmpfs(256 * 1024);
    fill(join(disk.dataDir, '..'));
  });
  after(() => disk?.unmount());

  it('refuses with exit 2 and a sentence naming the file it could not write and the full disk, leaving no settings.json', async () => {
    const run = await serveToExit(disk.dataDir);
    assert.equal(run.code, 2, run.output);
    const sentence = run.output.trim().split('\n').at(-1) ?? '';
    const settingsPath = join(disk.dataDir, 'settings.json');
    assert.ok(sentence.includes(`The Hub cannot write ${settingsPath} (ENOSPC)`), `names the file: ${run.output}`);
    assert.ok(sentence.includes(`the disk holding the data dir ${disk.dataDir} has no room left`), `names the cause: ${run.output}`);
    assert.equal(existsSync(settingsPath), false, 'no settings.json, whole or partial');
  });
});
