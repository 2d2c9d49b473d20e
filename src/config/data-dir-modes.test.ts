import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDataDir, isHubFile, isHubLogFile } from './data-dir-modes.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-modes-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

const freshDir = () => mkdtempSync(join(root, 'd-'));
const modeOf = (path: string) => lstatSync(path).mode & 0o777;
/** Writes a file and sets its mode exactly (the umask does not get a say). */
const fileAt = (path: string, mode: number) => {
  writeFileSync(path, 'x');
  chmodSync(path, mode);
};
const dirAt = (path: string, mode: number) => {
  mkdirSync(path);
  chmodSync(path, mode);
};

/** Every file the Hub writes, as an older version or a loose umask left it. */
const HUB_WRITES = [
  'hub.db',
  'hub.db-wal',
  'hub.db-shm',
  'operator.key',
  'settings.json',
  'settings.json.invalid-1764925200000',
  'identity.secret',
  'hub.json',
  'hub.lock',
];

describe('ensureDataDir', () => {
  it('creates a missing data dir, nested, readable only by its owner', () => {
    const dir = join(freshDir(), 'a', 'b');
    ensureDataDir(dir);
    assert.equal(modeOf(dir), 0o700);
    ensureDataDir(dir);
  });

  it("takes group and other bits off the dir and every file the Hub writes there, keeping the owner's", () => {
    const dir = freshDir();
    chmodSync(dir, 0o755);
    for (const name of HUB_WRITES) fileAt(join(dir, name), 0o644);
    chmodSync(join(dir, 'hub.lock'), 0o466);
    dirAt(join(dir, 'logs'), 0o755);
    for (const name of ['hub.log', 'hub.log.1', 'hub.log.4']) fileAt(join(dir, 'logs', name), 0o664);
    ensureDataDir(dir);
    assert.equal(modeOf(dir), 0o700);
    for (const name of HUB_WRITES) assert.equal(modeOf(join(dir, name)) & 0o077, 0, `${name} is ${modeOf(join(dir, name)).toString(8)}`);
    assert.equal(modeOf(join(dir, 'hub.db')), 0o600);
    assert.equal(modeOf(join(dir, 'hub.lock')), 0o400, "the owner's own bits are not changed");
    assert.equal(modeOf(join(dir, 'logs')), 0o700);
    for (const name of ['hub.log', 'hub.log.1', 'hub.log.4']) assert.equal(modeOf(join(dir, 'logs', name)), 0o600, name);
  });

  it('leaves alone what the Hub did not write: other files and dirs, their contents, and whatever a link points to', () => {
    const dir = freshDir();
    fileAt(join(dir, 'readme.txt'), 0o644);
    dirAt(join(dir, 'sub'), 0o755);
    fileAt(join(dir, 'sub', 'f'), 0o644);
    fileAt(join(dir, 'sub', 'hub.db'), 0o644);
    dirAt(join(dir, 'state'), 0o755);
    fileAt(join(dir, 'hub.db.backup'), 0o644);
    dirAt(join(dir, 'logs'), 0o700);
    fileAt(join(dir, 'logs', 'notes.txt'), 0o644);
    const outside = join(freshDir(), 'shared.txt');
    fileAt(outside, 0o644);
    symlinkSync(outside, join(dir, 'operator.key'));
    ensureDataDir(dir);
    for (const [path, mode] of [
      ['readme.txt', 0o644],
      ['sub', 0o755],
      ['sub/f', 0o644],
      ['sub/hub.db', 0o644],
      ['state', 0o755],
      ['hub.db.backup', 0o644],
      ['logs/notes.txt', 0o644],
    ] as const) {
      assert.equal(modeOf(join(dir, path)), mode, `${path} keeps ${mode.toString(8)}`);
    }
    assert.equal(modeOf(outside), 0o644, 'a link is not followed out of the data dir');
  });
});

describe("which names are the Hub's", () => {
  it('knows its top-level files by name, a kept-aside settings.json by prefix, and nothing else', () => {
    for (const name of HUB_WRITES) assert.equal(isHubFile(name), true, name);
    for (const name of ['hub.db.backup', 'readme.txt', 'logs', 'state', 'settings.json.bak', 'hub.db-journal-old']) assert.equal(isHubFile(name), false, name);
  });

  it('knows the log and its numbered rotations', () => {
    for (const name of ['hub.log', 'hub.log.1', 'hub.log.12']) assert.equal(isHubLogFile(name), true, name);
    for (const name of ['hub.log.', 'hub.log.old', 'hub.log.1.gz', 'other.log']) assert.equal(isHubLogFile(name), false, name);
  });
});
