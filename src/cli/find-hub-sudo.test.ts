/**
 * cihub under plain sudo runs as root and finds root's ~/.cihub, where no Hub runs: the Hub is in
 * the data dir of the account it runs as. The old sentence said to start one with `cihub serve`,
 * which would start a second Hub as root. The operator guide tells operators to expect "No device
 * key found" in this case, and that is what they now read, with the way out.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findHub, HubNotRunningError, sudoLookedInRootsHome, type Invoker } from './hub-client.js';

const ROOT_HOME_DIR = '/root/.cihub';
const underSudo: Invoker = { uid: 0, sudoUser: 'alice', defaultDataDir: ROOT_HOME_DIR };

describe('sudoLookedInRootsHome', () => {
  const rows: readonly { name: string; dataDir: string; who: Invoker; expected: boolean }[] = [
    { name: 'plain sudo, the default data dir', dataDir: ROOT_HOME_DIR, who: underSudo, expected: true },
    { name: 'plain sudo, a data dir given with --data-dir or CIHUB_DATA_DIR', dataDir: '/srv/cihub', who: underSudo, expected: false },
    { name: 'root logged in as root (no sudo)', dataDir: ROOT_HOME_DIR, who: { ...underSudo, sudoUser: null }, expected: false },
    { name: 'sudo from a root shell', dataDir: ROOT_HOME_DIR, who: { ...underSudo, sudoUser: 'root' }, expected: false },
    { name: 'sudo -u hub (not root)', dataDir: '/home/hub/.cihub', who: { uid: 1001, sudoUser: 'alice', defaultDataDir: '/home/hub/.cihub' }, expected: false },
  ];
  for (const r of rows) it(`${r.name}: ${r.expected}`, () => assert.equal(sudoLookedInRootsHome(r.dataDir, r.who), r.expected));
});

describe('findHub under plain sudo, with no Hub in root data dir', () => {
  it('says No device key found and how to run cihub instead, not to start a Hub; still exit 3', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cihub-sudo-'));
    try {
      assert.throws(
        () => findHub(dir, { ...underSudo, defaultDataDir: dir }),
        (err: unknown) => {
          assert.ok(err instanceof HubNotRunningError, String(err));
          assert.match(err.message, new RegExp(`^No device key found: under sudo, cihub looked in root's data dir ${dir}, and no Hub runs there\\. `));
          assert.match(err.message, /without sudo \(as alice, if the Hub is yours\), or with `sudo -u <that account>`/);
          assert.doesNotMatch(err.message, /cihub serve/);
          assert.match(err.found, /^no device key found: under sudo/);
          return true;
        },
      );
      assert.throws(
        () => findHub(dir, { ...underSudo, sudoUser: null, defaultDataDir: dir }),
        /: No Hub is running for the data dir .* Start one with `cihub serve`/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
