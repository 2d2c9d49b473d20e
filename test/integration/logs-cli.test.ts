/**
 * `cihub logs` against a real Hub: the Hub writes its log to <data dir>/logs/hub.log as well as
 * stdout; the CLI reads it (JSON lines when piped, as here), filters by level and time, and
 * with -f prints what the Hub writes next. A minted PIN's digits never reach the file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CIHUB_BIN, eventually, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

interface Line {
  readonly level: number;
  readonly time: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

const jsonLines = (text: string): Line[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe('cihub logs', () => {
  let hub: HubProcess;
  const logFile = () => join(hub.dataDir, 'logs', 'hub.log');

  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub?.stop();
  });

  it('the Hub writes the same log lines to stdout and to an owner-only file in its data dir', async () => {
    const file = await eventually(() => {
      try {
        const text = readFileSync(logFile(), 'utf8');
        return text.includes('hub listening') ? text : null;
      } catch {
        return null;
      }
    }, 'the log file to name the listening Hub');
    assert.equal(statSync(logFile()).mode & 0o777, 0o600);
    const first = jsonLines(file).find((l) => l.msg === 'hub listening');
    assert.ok(first);
    // The file can hold the line before this process has read it from the Hub's stdout pipe.
    await eventually(() => hub.log().includes(JSON.stringify(first.msg)), 'stdout to carry it too');
  });

  it('piped, prints the stored JSON lines oldest first; --level and --since filter them; a bad filter is one sentence', async () => {
    assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolHealthPollSeconds: 45 })).status, 200);
    await eventually(() => readFileSync(logFile(), 'utf8').includes('pool settings changed'), 'the settings change to be logged');

    const all = await runCli(['logs'], { dataDir: hub.dataDir });
    assert.equal(all.code, 0, all.stderr);
    const lines = jsonLines(all.stdout);
    const msgs = lines.map((l) => l.msg);
    assert.ok(msgs.indexOf('hub listening') < msgs.indexOf('pool settings changed'), 'oldest first');
    assert.deepEqual(
      lines.map((l) => l.time),
      [...lines.map((l) => l.time)].sort(),
      'in time order',
    );

    const warnings = await runCli(['logs', '--level', 'warn'], { dataDir: hub.dataDir });
    assert.equal(warnings.code, 0, warnings.stderr);
    assert.ok(jsonLines(warnings.stdout).every((l) => l.level >= 40));
    assert.doesNotMatch(warnings.stdout, /pool settings changed/);

    const future = await runCli(['logs', '--since', new Date(Date.now() + 3_600_000).toISOString()], { dataDir: hub.dataDir });
    assert.equal(future.code, 0, future.stderr);
    assert.equal(future.stdout, '');
    const recent = await runCli(['logs', '--since', '1h'], { dataDir: hub.dataDir });
    assert.match(recent.stdout, /pool settings changed/);

    for (const [flag, value, said] of [
      ['--since', 'yesterday', /^--since takes an age such as 30s, 10m, 2h or 1d, or an ISO 8601 time with a zone/],
      // The same instants `cihub pool log --since` takes, refused in the same words: no 30 February, no space for the T.
      ['--since', '2026-02-30T12:00:00Z', /^--since "2026-02-30T12:00:00Z" is not a real time\.$/m],
      ['--since', '2026-11-30 12:00:00Z', /^--since takes an age such as/],
      ['--since', '2026-11-30T12:00:00 01:00', /has a space where its offset's \+ goes \(give 2026-11-30T12:00:00\+01:00\)/],
      ['--level', 'loud', /^--level takes one of trace, debug/],
      // Names every plain object has: a lookup that reached Object.prototype took them for levels.
      ['--level', 'constructor', /^--level takes one of trace, debug/],
      ['--level', '__proto__', /^--level takes one of trace, debug/],
    ] as const) {
      const bad = await runCli(['logs', flag, value], { dataDir: hub.dataDir });
      assert.equal(bad.code, 2, 'a value the command line got wrong is a usage error');
      assert.equal(bad.stdout, '');
      assert.match(bad.stderr, said);
    }
  });

  it('a data dir where no Hub ever ran gets one sentence naming the file it looked for', async () => {
    const res = await runCli(['logs'], { dataDir: join(hub.dataDir, 'nowhere') });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /^No log at .*nowhere\/logs\/hub\.log yet: /);
  });

  it('a Hub that runs here but has logged nothing is not mistaken for no Hub: the sentence names HUB_LOG_LEVEL', async () => {
    // It used to say a Hub writes the log once it runs with this data dir, "so check --data-dir":
    // the operator was sent to look for a mistake in the one thing that was right.
    const silent = await startHubProcess({ env: { HUB_LOG_LEVEL: 'silent' } });
    try {
      const res = await runCli(['logs'], { dataDir: silent.dataDir });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /^No log at .*\/logs\/hub\.log yet: a Hub has run with this data dir but logged nothing/);
      assert.match(res.stderr, /HUB_LOG_LEVEL/);
      assert.doesNotMatch(res.stderr, /check --data-dir/);
    } finally {
      await silent.stop();
    }
  });

  it('-f prints lines the Hub writes after it started, and stops on a signal', async () => {
    const child = spawn(process.execPath, [CIHUB_BIN, '--data-dir', hub.dataDir, 'logs', '-f', '--since', '10s'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    try {
      const mark = `follow-${Date.now()}`;
      // An api key's label is not logged, but its creation is: one new line with a fresh id.
      const created = await hub.api<{ id: string }>('POST', '/api/hub/api-keys', { name: mark, scope: 'inference' });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      await eventually(() => jsonLines(out).some((l) => l.msg === 'api key created' && l.id === created.json.id), 'the followed log to show the new line');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, 'Ctrl-C ends -f cleanly');
  });

  it("a minted PIN's digits appear in the answer and never in the log", async () => {
    const minted = await hub.api<{ pin: string }>('POST', '/api/inference/pool/pairing-pin');
    assert.equal(minted.status, 200);
    await eventually(() => readFileSync(logFile(), 'utf8').includes('pairing PIN minted'), 'the mint to be logged');
    assert.ok(!readFileSync(logFile(), 'utf8').includes(minted.json.pin));
    assert.ok(!hub.log().includes(minted.json.pin));
  });
});
