/**
 * A Hub started before hub.json recorded a boot id, still running after an upgrade: its hub.json
 * names a live pid and no boot id. The CLI must neither call it "not running" (which sent the
 * operator to start a second Hub) nor send it the key, and `cihub serve` must not start over it:
 * such a Hub took no lock on its data dir. The older Hub is played by a hand-written hub.json in
 * the old format, naming this test process (certainly alive), with a listener at its address that
 * records whatever reaches it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorCheck } from '../../src/cli/doctor-checks.js';
import { freshDataDir, pathWithoutTailscale, runCli } from '../helpers/hub-process.js';
import { serveUntilSettled } from '../helpers/serve-over.js';

/** hub.json as a Hub from before the boot id wrote it: address, pid and start time only. */
function writeOldHubJson(dataDir: string, port: number, pid: number): string {
  const text = JSON.stringify({ url: `http://127.0.0.1:${port}`, port, pid, startedAt: new Date().toISOString() });
  writeFileSync(join(dataDir, 'hub.json'), text, { mode: 0o600 });
  return text;
}

/** A pid that existed a moment ago and no longer does. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('the CLI and a running Hub whose hub.json has no boot id', () => {
  let server: Server;
  let port: number;
  const seen: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '(no credential)'}`);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** A data dir whose hub.json an older Hub running as `pid` wrote, with the operator key beside it. */
  function olderHubDir(pid: number): string {
    const dataDir = freshDataDir();
    writeOldHubJson(dataDir, port, pid);
    writeFileSync(join(dataDir, 'operator.key'), 'cihub_op_secret-that-must-not-leak\n', { mode: 0o600 });
    return dataDir;
  }

  it('says an older Hub seems to run as that pid and to restart it with this cihub, or to remove a stale hub.json; exits 1 and sends nothing', async () => {
    seen.length = 0;
    const dataDir = olderHubDir(process.pid);
    const run = await runCli(['pool', 'set', 'poolLocalAffinity', '3', '--yes'], { dataDir });
    assert.equal(run.code, 1, `exit 1, as a Hub that runs but cannot be asked; stderr: ${run.stderr}`);
    assert.equal(
      run.stderr,
      `An older Hub seems to run as pid ${process.pid} for the data dir ${dataDir}, but its hub.json records no boot id (Hubs wrote none before this check), so this cihub cannot check what answers at http://127.0.0.1:${port} and did not send it the operator key. ` +
        `Restart that Hub with this cihub (stop pid ${process.pid}, then start it with \`cihub serve --data-dir ${dataDir}\` or its service manager); if no Hub runs there, pid ${process.pid} now belongs to another process and hub.json was left by a Hub that stopped: remove ${join(dataDir, 'hub.json')}.\n`,
    );
    assert.doesNotMatch(run.stderr, /not running/);
    assert.deepEqual(seen, [], 'nothing at all reaches the address, the key least of all');
  });

  it('is reported by doctor as H1 in the same words, H2 as not judged for an older build to restart, the other Hub-only checks not asked rather than "not running", and exit 1', async () => {
    seen.length = 0;
    const dataDir = olderHubDir(process.pid);
    const run = await runCli(['pool', 'doctor', '--json'], { dataDir, env: { PATH: pathWithoutTailscale() } });
    assert.equal(run.code, 1, run.stderr);
    const checks = (JSON.parse(run.stdout) as { checks: DoctorCheck[] }).checks;
    assert.equal(checks[0]?.code, 'H1');
    assert.equal(checks[0]?.verdict, 'fail');
    assert.match(checks[0]?.found ?? '', new RegExp(`^an older Hub seems to run as pid ${process.pid} for the data dir .*records no boot id`));
    assert.match(checks[0]?.fix ?? '', /^restart that Hub with this cihub .*remove .*hub\.json$/);
    const h2 = checks.find((c) => c.code === 'H2');
    assert.deepEqual([h2?.verdict, h2?.fix], ['unknown', null], 'not judged, and the restart is left to H1');
    assert.match(h2?.found ?? '', /^not judged: the Hub H1 names is a build older than this cihub .* until it is restarted as H1 says$/);
    assert.equal(checks.find((c) => c.code === 'H3')?.found, 'not checked: the Hub could not be asked (H1)');
    assert.deepEqual(seen, []);
  });

  it('still says no Hub is running, exit 3, when the pid it names has gone', async () => {
    seen.length = 0;
    const run = await runCli(['pool', 'status'], { dataDir: olderHubDir(await deadPid()) });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /^The Hub is not running: .*hub\.json is left over from a Hub that has stopped/);
    assert.deepEqual(seen, []);
  });

  it('says no Hub is running, exit 3, when the pid lives on but nothing takes connections at the address (reused after a reboot), as serve judges it', async () => {
    const dataDir = freshDataDir();
    const closed = createNetServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const freed = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    writeOldHubJson(dataDir, freed, process.pid);
    writeFileSync(join(dataDir, 'operator.key'), 'cihub_op_secret-that-must-not-leak\n', { mode: 0o600 });
    const run = await runCli(['pool', 'status'], { dataDir });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /^The Hub is not running: .*hub\.json is left over from a Hub that has stopped/);
  });
});

describe('cihub serve over the data dir of a running Hub whose hub.json has no boot id', () => {
  /** Where the older Hub listens: it takes connections and, stopped or old, answers nothing useful. */
  let older: NetServer;
  let olderPort: number;
  before(async () => {
    older = createNetServer((socket) => socket.destroy());
    older.listen(0, '127.0.0.1');
    await once(older, 'listening');
    olderPort = (older.address() as AddressInfo).port;
  });
  after(() => older.close());

  it('refuses to start, exit 2, saying what to do, and leaves hub.json as the older Hub wrote it', async () => {
    const dataDir = freshDataDir();
    // On another port than the one serve takes, so only the data dir's holder can stop it.
    const hubJson = writeOldHubJson(dataDir, olderPort, process.pid);
    const run = await serveUntilSettled(dataDir);
    assert.equal(run.listened, false, `a second Hub must not start beside the older one; output:\n${run.output}`);
    assert.equal(run.code, 2, run.output);
    assert.equal(
      run.output,
      `The data dir ${dataDir} may be in use by an older Hub: its hub.json names pid ${process.pid} at http://127.0.0.1:${olderPort}, which is running, but records no boot id (older Hubs wrote none, and took no lock on the dir), so this cihub cannot check that a Hub answers there. ` +
        `Stop that Hub first (kill ${process.pid}) and start this one again; if pid ${process.pid} is no Hub, hub.json was left by a Hub that stopped: remove ${join(dataDir, 'hub.json')} and start again. Nothing was written.\n`,
    );
    assert.equal(readFileSync(join(dataDir, 'hub.json'), 'utf8'), hubJson);
    assert.deepEqual(readdirSync(dataDir), ['hub.json'], 'no operator.key, settings.json, hub.db or hub.lock');
  });

  it('starts over such a hub.json once the pid it names has gone', async () => {
    const dataDir = freshDataDir();
    writeOldHubJson(dataDir, 9, await deadPid());
    const run = await serveUntilSettled(dataDir);
    assert.equal(run.listened, true, run.output);
  });

  it('starts over such a hub.json when its pid runs but nothing takes connections at its address (the pid reused after a crash and a reboot)', async () => {
    const dataDir = freshDataDir();
    const closed = createNetServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    writeOldHubJson(dataDir, port, process.pid);
    const run = await serveUntilSettled(dataDir);
    assert.equal(run.listened, true, run.output);
  });
});
