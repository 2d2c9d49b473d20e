import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  dataDirRefused,
  HUB_INFO_FILE,
  loadOrCreateOperatorKey,
  OPERATOR_KEY_FILE,
  readHubInfo,
  readOperatorKey,
  removeHubInfo,
  writeHubInfo,
  type HubInfo,
} from './data-dir.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-datadir-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

const freshDir = () => mkdtempSync(join(root, 'd-'));
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('the operator key', () => {
  it('is minted on first start into operator.key, one line, mode 0600', () => {
    const dir = freshDir();
    const key = loadOrCreateOperatorKey(dir);
    const path = join(dir, OPERATOR_KEY_FILE);
    assert.match(key, /^cihub_op_[A-Za-z0-9_-]{43}$/);
    assert.equal(readFileSync(path, 'utf8'), `${key}\n`);
    assert.equal(modeOf(path), 0o600);
    assert.deepEqual(readdirSync(dir), [OPERATOR_KEY_FILE]);
  });

  it('is minted once: later starts read the same key back', () => {
    const dir = freshDir();
    const first = loadOrCreateOperatorKey(dir);
    assert.equal(loadOrCreateOperatorKey(dir), first);
    assert.equal(readOperatorKey(dir), first);
  });

  it('differs between data dirs', () => {
    assert.notEqual(loadOrCreateOperatorKey(freshDir()), loadOrCreateOperatorKey(freshDir()));
  });

  it('tightens a key file others can read (0644) to 0600 and keeps its key', () => {
    const dir = freshDir();
    const path = join(dir, OPERATOR_KEY_FILE);
    writeFileSync(path, 'cihub_op_handmade\n');
    chmodSync(path, 0o644);
    assert.equal(loadOrCreateOperatorKey(dir), 'cihub_op_handmade');
    assert.equal(modeOf(path), 0o600);
  });

  it('mints a new key over an empty key file, and says so', () => {
    const dir = freshDir();
    writeFileSync(join(dir, OPERATOR_KEY_FILE), '\n');
    const replaced: string[] = [];
    const key = loadOrCreateOperatorKey(dir, undefined, (path) => replaced.push(path));
    assert.match(key, /^cihub_op_/);
    assert.equal(readOperatorKey(dir), key);
    assert.deepEqual(replaced, [join(dir, OPERATOR_KEY_FILE)]);
  });

  it('says nothing when it mints the first key or reads one back', () => {
    const dir = freshDir();
    const replaced: string[] = [];
    loadOrCreateOperatorKey(dir, undefined, (path) => replaced.push(path));
    loadOrCreateOperatorKey(dir, undefined, (path) => replaced.push(path));
    assert.deepEqual(replaced, []);
  });

  it('reads as null for the CLI when the file is missing or empty', () => {
    const dir = freshDir();
    assert.equal(readOperatorKey(dir), null);
    writeFileSync(join(dir, OPERATOR_KEY_FILE), '  \n');
    assert.equal(readOperatorKey(dir), null);
  });
});

describe('hub.json', () => {
  const info = (pid: number): HubInfo => ({ url: 'http://127.0.0.1:5002', port: 5002, pid, startedAt: '2026-11-30T12:00:00.000Z' });

  it('is written privately and read back as written', () => {
    const dir = freshDir();
    writeHubInfo(dir, info(4242));
    assert.deepEqual(readHubInfo(dir), info(4242));
    assert.equal(modeOf(join(dir, HUB_INFO_FILE)), 0o600);
    assert.deepEqual(readdirSync(dir), [HUB_INFO_FILE]);
  });

  it('is removed by the process that wrote it', () => {
    const dir = freshDir();
    writeHubInfo(dir, info(4242));
    removeHubInfo(dir, 4242);
    assert.equal(existsSync(join(dir, HUB_INFO_FILE)), false);
    assert.equal(readHubInfo(dir), null);
  });

  it('is left alone by a process whose pid it does not carry (a newer Hub replaced it)', () => {
    const dir = freshDir();
    writeHubInfo(dir, info(5151));
    removeHubInfo(dir, 4242);
    assert.deepEqual(readHubInfo(dir), info(5151));
  });

  it('reads as null when missing, not JSON, or missing its url or port', () => {
    const dir = freshDir();
    assert.equal(readHubInfo(dir), null);
    writeFileSync(join(dir, HUB_INFO_FILE), '{not json');
    assert.equal(readHubInfo(dir), null);
    writeFileSync(join(dir, HUB_INFO_FILE), JSON.stringify({ url: 'http://127.0.0.1:5002', pid: 1 }));
    assert.equal(readHubInfo(dir), null);
    removeHubInfo(dir, 1);
    assert.ok(existsSync(join(dir, HUB_INFO_FILE)), 'an unreadable hub.json is not claimed by any pid');
  });
});

describe("dataDirRefused: another account's data dir is told apart from one with no Hub", () => {
  const failing = (code: string, on: string) => (path: string) => {
    if (path.endsWith(on)) throw Object.assign(new Error(code), { code });
  };
  const rows: readonly { name: string; access: (path: string) => void; refused: boolean }[] = [
    { name: "the dir is another account's (EACCES)", access: failing('EACCES', 'hub-data'), refused: true },
    { name: "hub.json is another account's (EPERM)", access: failing('EPERM', HUB_INFO_FILE), refused: true },
    { name: 'hub.json is missing: no Hub, not a refusal', access: failing('ENOENT', HUB_INFO_FILE), refused: false },
    { name: 'both readable', access: () => undefined, refused: false },
  ];
  for (const row of rows) it(row.name, () => assert.equal(dataDirRefused('/srv/hub-data', row.access), row.refused));

  it("reads this account's own data dir as not refused", () => {
    const dir = freshDir();
    writeHubInfo(dir, { url: 'http://127.0.0.1:5002', port: 5002, pid: 1, startedAt: '2026-11-30T12:00:00.000Z' });
    assert.equal(dataDirRefused(dir), false);
  });
});
