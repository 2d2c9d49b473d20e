/**
 * `cihub demo --once`: a first look that has to work out of the box. It runs three Hubs, the
 * first in front of a simulated Ollama and vLLM and each of the others holding a model only it
 * has, pairs them, sends a few requests, fails one engine once, prints where each request was
 * served, and exits.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { CIHUB_BIN, eventually, freshDataDir, pathWithoutTailscale, runCli } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

/** Bounds a demo that hangs: a bound, not a speed target (those belong in bench/). */
const DEMO_TIMEOUT_MS = scaled(120_000);

interface DemoRow {
  readonly request: string;
  readonly route: string;
  readonly model: string;
  readonly status: string;
  readonly servedBy: string;
  readonly engine: string;
}

/** The rows of the table under its REQUEST … ENGINE header, split on the two-space column gaps. */
function tableRows(stdout: string): DemoRow[] {
  const lines = stdout.split('\n');
  const header = lines.findIndex((l) => /REQUEST\s+ROUTE\s+MODEL\s+STATUS\s+SERVED BY\s+ENGINE/.test(l));
  assert.ok(header >= 0, `a table header in:\n${stdout}`);
  const rows: DemoRow[] = [];
  for (const line of lines.slice(header + 1)) {
    if (line.trim() === '') break;
    const cells = line.trim().split(/\s{2,}/);
    assert.equal(cells.length, 6, `six columns in: ${line}`);
    const [request, route, model, status, servedBy, engine] = cells as [string, string, string, string, string, string];
    rows.push({ request, route, model, status, servedBy, engine });
  }
  return rows;
}

describe('cihub demo --help', () => {
  it('says the demo runs three paired Hubs, as it does', async () => {
    const res = await runCli(['demo', '--help'], { dataDir: freshDataDir() });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /three Hubs on loopback, each fronting simulated engines and paired with a PIN/);
    assert.doesNotMatch(res.stdout, /a Hub with two simulated engines/);
  });
});

describe('cihub demo --once', () => {
  it(
    'exits 0 after printing a table of requests served by both local engines and by the peers that alone hold a model, with the failover served by vLLM',
    { timeout: DEMO_TIMEOUT_MS },
    async () => {
      // The demo's own temporary data dirs go under TMPDIR: one of the test's, so it can see them go.
      const tmp = freshDataDir();
      const res = await runCli(['demo', '--once'], { dataDir: freshDataDir(), dataDirFlag: false, env: { TMPDIR: tmp } });
      assert.equal(res.code, 0, res.stderr);

      const rows = tableRows(res.stdout);
      assert.ok(rows.length >= 3, `several rows, got ${rows.length}`);
      for (const row of rows) {
        assert.equal(row.status, '200', `${row.request} answered 200`);
        assert.ok(['ollama', 'vllm'].includes(row.engine), `${row.request} names its engine`);
      }
      // A model only one peer holds is served by that peer, named by its tailnet name.
      assert.deepEqual(
        rows.filter((r) => r.servedBy !== 'local').map((r) => [r.model, r.servedBy]),
        [
          ['mistral:7b', 'hub-b.demo.ts.net'],
          ['phi4:14b', 'hub-c.demo.ts.net'],
        ],
      );
      const engines = new Set(rows.map((r) => r.engine));
      assert.ok(engines.has('ollama'), 'some request was served by the Ollama engine');
      assert.ok(engines.has('vllm'), 'some request was served by the vLLM engine');
      assert.ok(rows.some((r) => r.route.startsWith('/v1/')) && rows.some((r) => r.route.startsWith('/api/')), 'both dialects are shown');

      const failover = rows.find((r) => /503/.test(r.request));
      assert.ok(failover, 'a row for the engine that answered 503');
      assert.equal(failover.engine, 'vllm');
      assert.equal(failover.servedBy, 'local');
      // The failed-over model is one both engines hold, so only the walk can explain vLLM serving it.
      assert.ok(
        rows.some((r) => r !== failover && r.model === failover.model && r.engine === 'ollama'),
        'the same model is served by Ollama when nothing fails',
      );

      // --once stops everything it started and removes the data dirs it made, so it suggests
      // no command to try on them.
      assert.deepEqual(readdirSync(tmp), []);
      assert.doesNotMatch(res.stdout, /Try it|--data-dir|Ctrl-C/);
    },
  );
});

describe('cihub demo stopped with Ctrl-C while it is still starting', () => {
  it('stops what it started, removes the data dirs it made so far, and exits 0', { timeout: DEMO_TIMEOUT_MS }, async () => {
    const tmp = freshDataDir();
    const child = spawn(process.execPath, [CIHUB_BIN, 'demo'], {
      env: { PATH: pathWithoutTailscale(), HOME: freshDataDir(), TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // The first Hub's data dir is made before it starts, long before the three are paired.
      await eventually(() => readdirSync(tmp).some((name) => name.startsWith('cihub-demo-')), 'the first data dir');
      assert.doesNotMatch(output, /Ctrl-C stops the demo/, 'still starting when the signal is sent');
      child.kill('SIGINT');
      assert.equal(await exited, 0, output);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    assert.deepEqual(readdirSync(tmp), [], 'no data dir is left behind');
  });
});
