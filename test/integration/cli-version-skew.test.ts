/**
 * After an upgrade the installed cihub is new while the Hub keeps running the release it started
 * with, until someone restarts it; with two installs, an older cihub may come first on PATH. The
 * Hub records its version in hub.json; the CLI compares it with its own and warns on stderr, so a
 * --json document on stdout still parses, and doctor reports it as H2. A Hub of another version
 * is played here by rewriting the running Hub's hub.json, which is all the CLI reads of it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorCheck } from '../../src/cli/doctor-checks.js';
import { REPO_ROOT, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('the CLI and a Hub of another version', () => {
  let hub: HubProcess;
  let hubJson: string;
  let written: Record<string, unknown>;
  before(async () => {
    hub = await startHubProcess();
    hubJson = join(hub.dataDir, 'hub.json');
    written = JSON.parse(readFileSync(hubJson, 'utf8')) as Record<string, unknown>;
  });
  after(async () => {
    await hub.stop();
  });

  function recordInHubJson(version: string | undefined): void {
    const { version: _written, ...rest } = written;
    writeFileSync(hubJson, JSON.stringify(version === undefined ? rest : { ...rest, version }));
  }

  it("records the Hub's version, package.json's, in hub.json", () => {
    assert.equal(written.version, PACKAGE_VERSION);
  });

  it('says nothing when hub.json records this version', async () => {
    recordInHubJson(PACKAGE_VERSION);
    const run = await runCli(['pool', 'status', '--json'], { dataDir: hub.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
  });

  it('warns once on stderr naming both versions and the restart, while --json on stdout still parses', async () => {
    recordInHubJson('0.0.1');
    const run = await runCli(['pool', 'status', '--json'], { dataDir: hub.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stderr,
      `Warning: this cihub is ${PACKAGE_VERSION} but the running Hub is 0.0.1; restart the Hub with \`cihub serve\` (or its service manager) so the two agree. Until then, commands can fail or show less.\n`,
    );
    const status = JSON.parse(run.stdout) as { contextCaps: unknown };
    assert.ok(status.contextCaps, 'stdout is the status document alone');
  });

  it("tells a cihub older than the running Hub to run the Hub's own cihub or upgrade, since a restart with it would downgrade the Hub", async () => {
    recordInHubJson('999.0.0');
    const run = await runCli(['pool', 'peers', '--json'], { dataDir: hub.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stderr,
      `Warning: this cihub is ${PACKAGE_VERSION}, older than the running Hub (999.0.0); run the cihub the Hub was started from (another install may come first on PATH), or upgrade this one, so the two agree; restarting the Hub with this cihub would downgrade it. Until then, commands can fail or show less.\n`,
    );
  });

  it('is reported by doctor as H2, in place of the warning line', async () => {
    recordInHubJson('0.0.1');
    const skewed = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
    assert.doesNotMatch(skewed.stderr, /Warning/);
    const h2 = (JSON.parse(skewed.stdout) as { checks: DoctorCheck[] }).checks.find((c) => c.code === 'H2');
    assert.deepEqual(h2, {
      code: 'H2',
      verdict: 'warn',
      found: `this cihub is ${PACKAGE_VERSION} but the running Hub is 0.0.1`,
      fix: 'restart the Hub with `cihub serve` (or its service manager) so the two agree',
    });
    recordInHubJson(PACKAGE_VERSION);
    const same = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
    assert.deepEqual(
      (JSON.parse(same.stdout) as { checks: DoctorCheck[] }).checks.find((c) => c.code === 'H2'),
      { code: 'H2', verdict: 'ok', found: `this cihub and the Hub both run ${PACKAGE_VERSION}`, fix: null },
    );
  });

  it('reads a hub.json without a version, as Hubs before this field wrote it, as an older Hub', async () => {
    recordInHubJson(undefined);
    const run = await runCli(['pool', 'peers', '--json'], { dataDir: hub.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /^Warning: this cihub is \S+ but the running Hub is an older version \(its hub\.json records none\); restart the Hub with `cihub serve`/,
    );
    assert.equal(run.stderr.split('\n').length, 2, 'one line');
    assert.deepEqual(JSON.parse(run.stdout), { peers: [] });
  });
});
