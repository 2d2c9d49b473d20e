/**
 * The Hub's SQLite store under hostile conditions, against real Hub processes (issue 9,
 * defects 1 and 16): another process holding hub.db locked, a store that has turned read-only,
 * and a data dir whose files others could read. The Hub stays up, keeps serving inference,
 * answers the requests that needed a write with 503 HUB_ERR_STORE_UNAVAILABLE, and keeps
 * every file it writes owner-only while leaving the modes of everything else in the dir alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { eventually, freshDataDir, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';
import { FakePeer, fqdn, mintPin, pairFakeWithPin, peerNamed, POOL, reservePorts, startNamedHub } from './pairing-fixtures.js';
import { scratchDir } from '../helpers/scratch-dir.js';

const MODEL = 'good-model';
const CAPS = `${POOL}/capabilities`;

function alive(hub: HubProcess): boolean {
  return hub.child.exitCode === null && hub.child.signalCode === null;
}

async function servesInference(hub: HubProcess): Promise<void> {
  const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine', maxRetries: 0 });
  const answer = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] });
  assert.equal(answer.choices[0]?.message.role, 'assistant');
}

/** Log lines (parsed) whose message matches. */
function logLines(hub: HubProcess, pattern: RegExp): Array<Record<string, unknown>> {
  return hub
    .log()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => typeof l.msg === 'string' && pattern.test(l.msg));
}

describe('another process holds hub.db locked', () => {
  const NAME = fqdn('hub-locked');
  let engine: SimEngine;
  let hub: HubProcess;
  let hubUuid: string;
  const peer = new FakePeer('peer-of-locked');
  let locker: Database.Database;

  before(async () => {
    engine = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    await peer.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: NAME, port: ports.hub, origins: { [peer.name]: peer.origin }, env: { VLLM_URL: engine.url } });
    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 10 })).status, 200);
    ({ hubUuid } = await pairFakeWithPin(hub, peer));
    await eventually(async () => (await peerNamed(hub, peer.name))?.lastSeenAt, 'the first good poll of the peer', scaled(15_000));
    locker = new Database(join(hub.dataDir, 'hub.db'));
  });

  after(async () => {
    if (locker?.inTransaction) locker.exec('COMMIT');
    locker?.close();
    await hub?.stop();
    await Promise.all([engine?.close(), peer.close()]);
  });

  it('answers a signed request that needs a write 503 at once, serves inference, and survives the health poll', async () => {
    const good = await peer.signed(hub, { recipient: hubUuid, method: 'GET', path: CAPS });
    assert.equal(good.status, 200, good.text);

    locker.exec('BEGIN EXCLUSIVE');
    const refused = await peer.signed(hub, { recipient: hubUuid, method: 'GET', path: CAPS });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.error.code, 'HUB_ERR_STORE_UNAVAILABLE');
    await servesInference(hub);

    // The next health poll writes the peer's row and meets the lock: logged, not fatal.
    const polls = peer.received.filter((r) => r.url === CAPS && r.method === 'GET').length;
    await eventually(() => logLines(hub, /background task "peer health probe" failed/).length > 0 || !alive(hub), 'the locked health poll', scaled(30_000));
    assert.ok(alive(hub), `the Hub is still running; log:\n${hub.log().slice(-2000)}`);
    assert.ok(peer.received.filter((r) => r.url === CAPS && r.method === 'GET').length > polls, 'the poll did reach the peer');
    const [line] = logLines(hub, /background task "peer health probe" failed/);
    assert.equal((line!.error as { code: string }).code, 'HUB_ERR_STORE_UNAVAILABLE');
    await servesInference(hub);

    locker.exec('COMMIT');
    const again = await peer.signed(hub, { recipient: hubUuid, method: 'GET', path: CAPS });
    assert.equal(again.status, 200, again.text);
  });
});

describe('a store that has turned read-only', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  let dataDir: string;
  // Root ignores file permissions; run the Hub as an ordinary user when the suite runs as root.
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

  before(async () => {
    engine = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.01 });
    dataDir = freshDataDir();
    if (user) chownSync(dataDir, user.uid, user.gid);
    const first = await startHubProcess({ dataDir, ...(user ? { user } : {}) });
    await first.stop();
    // A pairing request past its expiry, so the first sweep has a row to delete: a sweep with
    // nothing expired only reads, and the read-only store lets it.
    const db = new Database(join(dataDir, 'hub.db'));
    db.prepare("INSERT INTO hub_pool_peer (id, node_fqdn, direction, status, created_at, expires_at) VALUES (?, ?, 'inbound', 'pending', ?, ?)").run(
      'expired-request',
      'stale.tail0.ts.net',
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    );
    db.close();
    chmodSync(join(dataDir, 'hub.db'), 0o400);
    hub = await startHubProcess({ dataDir, env: { VLLM_URL: engine.url }, ...(user ? { user } : {}) });
  });

  after(async () => {
    await hub?.stop();
    await engine?.close();
  });

  it('keeps running when its housekeeping cannot write, and logs why', async () => {
    await eventually(() => logLines(hub, /background task "pairing request sweep" failed/).length > 0 || !alive(hub), 'the first expiry sweep', scaled(15_000));
    assert.ok(alive(hub), `the Hub is still running; log:\n${hub.log().slice(-2000)}`);
    assert.match(JSON.stringify(logLines(hub, /pairing request sweep/)[0]), /SQLITE_READONLY/);
  });

  it('serves inference and answers a write 503 with the catalogue code', async () => {
    await servesInference(hub);
    const created = await hub.api<{ error: { code: string; message: string } }>('POST', '/api/hub/api-keys', { name: 'ci', scope: 'inference' });
    assert.equal(created.status, 503, JSON.stringify(created.json));
    assert.equal(created.json.error.code, 'HUB_ERR_STORE_UNAVAILABLE');
    assert.match(created.json.error.message, /SQLITE_READONLY/);
    assert.equal((await hub.api('GET', `${POOL}/status`)).status, 200);
    assert.ok(alive(hub));
  });
});

describe('the data dir is owner-only', () => {
  let hub: HubProcess;
  let dataDir: string;
  let outside: string;

  before(async () => {
    // A data dir made by hand under a loose umask, before this rule: readable by everyone.
    dataDir = scratchDir('cihub-loose-');
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'settings.json'), '{}\n', { mode: 0o644 });
    // An empty hub.db is a new database to SQLite: the one an older Hub left at 0644.
    writeFileSync(join(dataDir, 'hub.db'), '');
    chmodSync(join(dataDir, 'hub.db'), 0o644);
    writeFileSync(join(dataDir, 'notes.txt'), 'left by the operator\n', { mode: 0o666 });
    mkdirSync(join(dataDir, 'backups'));
    chmodSync(join(dataDir, 'backups'), 0o755);
    writeFileSync(join(dataDir, 'backups', 'old.db'), 'x', { mode: 0o644 });
    chmodSync(join(dataDir, 'backups', 'old.db'), 0o644);
    chmodSync(join(dataDir, 'notes.txt'), 0o666);
    // A link out of the data dir must not make the Hub chmod someone else's file.
    outside = join(scratchDir('cihub-outside-'), 'shared.txt');
    writeFileSync(outside, "not the Hub's", { mode: 0o644 });
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dataDir, 'link-out'));
    hub = await startHubProcess({ dataDir });
    // Touch every file the Hub writes: settings, the identity secret and key row, the WAL.
    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 20 })).status, 200);
    await mintPin(hub);
  });

  after(async () => {
    await hub?.stop();
  });

  it('tightens the dir to 0700 and every file the Hub writes, old and new, to owner-only', () => {
    const mode = (p: string) => lstatSync(p).mode & 0o777;
    assert.equal(mode(dataDir), 0o700);
    const hubFiles = ['hub.db', 'hub.db-wal', 'hub.db-shm', 'operator.key', 'hub.json', 'hub.lock', 'settings.json', 'identity.secret', 'logs/hub.log'];
    for (const name of hubFiles) assert.equal(mode(join(dataDir, name)) & 0o077, 0, `${name} is ${mode(join(dataDir, name)).toString(8)}`);
    assert.equal(mode(join(dataDir, 'hub.db')), 0o600);
    assert.equal(mode(join(dataDir, 'logs')), 0o700);
  });

  it('leaves the modes of what it did not write alone, in the dir, below it and behind a link', () => {
    const mode = (p: string) => lstatSync(p).mode & 0o777;
    assert.equal(mode(join(dataDir, 'notes.txt')), 0o666);
    assert.equal(mode(join(dataDir, 'backups')), 0o755);
    assert.equal(mode(join(dataDir, 'backups', 'old.db')), 0o644);
    assert.equal(mode(outside), 0o644, 'the file a symlink points to, outside the data dir, is left alone');
  });
});
