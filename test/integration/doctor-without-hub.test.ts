/**
 * cihub pool doctor run where no Hub answers for the data dir: it is what an operator runs when
 * a Hub will not pool, so it still judges Tailscale from its own process (here a fake
 * `tailscale` on PATH), says first that the Hub is not running and how to start it, lists what
 * only the Hub could answer as unknown, and exits 3 as every command does without a Hub.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { DoctorCheck } from '../../src/cli/doctor-checks.js';
import { fakeTailscale, runningStatus } from '../helpers/fake-tailscale.js';
import { freshDataDir, freePort, runCli } from '../helpers/hub-process.js';

const ACCOUNT = userInfo().username;

/** A pid that existed a moment ago and no longer does. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('cihub pool doctor with no Hub running for the data dir', () => {
  it('with no hub.json: H1 fails first, Tailscale is judged for the configured port, the rest reads unknown, and it exits 3', async () => {
    const fake = fakeTailscale({ status: runningStatus('hub-a'), serve: {}, operatorUser: ACCOUNT });
    const dataDir = freshDataDir();
    const port = await freePort();
    const run = await runCli(['pool', 'doctor', '--json'], { dataDir, env: { PATH: fake.path, API_PORT: String(port) } });
    assert.equal(run.code, 3, run.stderr);
    assert.equal(run.stderr, '2 checks need action: H1, C2.\n');
    const checks = (JSON.parse(run.stdout) as { checks: DoctorCheck[] }).checks;
    assert.deepEqual(checks[0], {
      code: 'H1',
      verdict: 'fail',
      found: `no Hub is running for the data dir ${dataDir} (no hub.json there)`,
      fix: `start one with \`cihub serve --data-dir ${dataDir}\``,
    });
    const byCode = Object.fromEntries(checks.map((c) => [c.code, c]));
    assert.deepEqual(
      ['C1', 'C2', 'C3', 'C4'].map((c) => byCode[c]?.verdict),
      ['ok', 'fail', 'ok', 'ok'],
    );
    assert.equal(byCode.C1?.found, 'tailnet name hub-a.tail0.ts.net');
    assert.equal(byCode.C2?.fix, `run once on this machine: tailscale serve --bg --yes --https=443 http://127.0.0.1:${port}`);
    assert.deepEqual(
      checks.filter((c) => c.verdict === 'unknown').map((c) => [c.code, c.found]),
      ['H2', 'H3', 'P1', 'P2', 'E1', 'M1', 'M2', 'D2', 'P3', 'F1', 'F2', 'F4'].map((c) => [c, 'not checked: the Hub is not running (H1)']),
    );
    assert.ok(!fake.calls().some((c) => c.includes('--bg')), 'doctor only reads: it never publishes the Hub itself');
  });

  it("with no tailscale on the PATH: C1 names the PATH cihub runs with, not a Hub's", async () => {
    const dataDir = freshDataDir();
    const run = await runCli(['pool', 'doctor', '--json'], { dataDir, env: { PATH: freshDataDir() } });
    assert.equal(run.code, 3, run.stderr);
    const c1 = (JSON.parse(run.stdout) as { checks: DoctorCheck[] }).checks.find((c) => c.code === 'C1');
    assert.equal(c1?.found, 'the tailscale command is not on the PATH cihub runs with');
  });

  it('with a hub.json left over from a stopped Hub: Tailscale is judged for the port that Hub had, and the table says so', async () => {
    const hubPort = await freePort();
    const fake = fakeTailscale({
      status: runningStatus('hub-a'),
      serve: { TCP: { '443': { HTTPS: true } }, Web: { 'hub-a.tail0.ts.net:443': { Handlers: { '/': { Proxy: `http://127.0.0.1:${hubPort}` } } } } },
      operatorUser: ACCOUNT,
    });
    const dataDir = freshDataDir();
    writeFileSync(
      join(dataDir, 'hub.json'),
      JSON.stringify({ url: `http://127.0.0.1:${hubPort}`, port: hubPort, pid: await deadPid(), startedAt: new Date().toISOString(), bootId: 'gone' }),
    );
    writeFileSync(join(dataDir, 'operator.key'), 'cihub_op_left-over\n', { mode: 0o600 });
    const run = await runCli(['pool', 'doctor'], { dataDir, env: { PATH: fake.path } });
    assert.equal(run.code, 3, run.stderr);
    assert.equal(run.stderr, '1 check needs action: H1.\n');
    const lines = run.stdout.trimEnd().split('\n');
    assert.match(
      lines[0] ?? '',
      new RegExp(
        `^✗ H1 +no Hub is running for the data dir .*: its hub\\.json is left over from a Hub that has stopped +→ start it with \`cihub serve --data-dir ${dataDir}\`$`,
      ),
    );
    assert.match(lines[1] ?? '', /^\? H2 +not checked: the Hub is not running \(H1\)/);
    assert.match(lines[2] ?? '', /^\? H3 +not checked: the Hub is not running \(H1\)/);
    assert.match(lines[4] ?? '', new RegExp(`^✓ C2 +Tailscale Serve publishes this Hub at https://hub-a\\.tail0\\.ts\\.net/ \\(port ${hubPort}\\)`));
    assert.match(lines[7] ?? '', /^\? P1 +not checked: the Hub is not running \(H1\)/);
  });
});
