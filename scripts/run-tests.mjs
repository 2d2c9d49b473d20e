#!/usr/bin/env node
// Runs every compiled *.test.js under dist/ with node's test runner.
// Unit tests sit beside their source (dist/src/**, dist/bench/**); integration tests start real Hub
// processes (dist/test/**), so concurrency is bounded for a two-core machine: four files at once.
// Most integration files spend their time waiting out health polls: at two files the cores sat 23%
// idle through a full run (20.3 min), at three 32% idle after the checks (19.5 min), at four 21%
// (16.6 min; vmstat, 2026-12-06 and 07). The integration and browser files go first and the unit
// files last (15.2 min): the units are short and busy the cores, so they fill time the last long
// integration files spend waiting, where sorted by path those ran alone at the end (60 to 100%
// idle over the last minutes).
// dist/test/hosts/ is left out: it needs root and network namespaces, and runs through
// `npm run test:hosts` (scripts/test-hosts.mjs).
// The tests make their data dirs, fake daemons and browser profiles under os.tmpdir(); the run
// points TMPDIR at a directory of its own and removes it at the end, so a run leaves nothing in
// /tmp (before, each full run left about 200 directories there). The name is short because a
// fake Docker socket lives two levels down and macOS caps a socket path at 104 bytes. It is
// opened to others as /tmp is, since some tests run a Hub as another account (attack-store).
// Every test, and every file as a whole, gets FILE_TIMEOUT_MS: the runner fails a file that has
// not finished by then and kills its process, naming it. Without a bound one stuck file held a
// fresh-clone run for 31 minutes (2026-12-07, src/pairing/request-outside-tailnet) and would have
// held CI to its 90-minute limit. The slowest file runs about 140 s in a full run, and under twice that
// on a loaded machine; ten minutes leaves room for both and still fails a hang well inside CI's.
// A file ended that way leaves a note of what it was waiting on (test-timeout-report.mjs),
// printed after the run.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

function collect(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const filter = process.argv.slice(2);
const files = [...collect('dist/test', []).sort(), ...[...collect('dist/src', []), ...collect('dist/bench', [])].sort()]
  .filter((f) => !f.startsWith(join('dist', 'test', 'hosts')))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)));
if (files.length === 0) {
  process.stderr.write('no test files matched\n');
  process.exit(1);
}
// Stretched by HUB_TEST_TIME_SCALE as every test deadline is (docs/testing.md); a run that is long
// on purpose (npm run test:chaos) sets its own bound in CIHUB_TEST_FILE_TIMEOUT_MS.
const TIME_SCALE = Number(process.env.HUB_TEST_TIME_SCALE || 1);
const FILE_TIMEOUT_MS = Number(process.env.CIHUB_TEST_FILE_TIMEOUT_MS || 10 * 60 * 1000 * TIME_SCALE);
/** How long before the bound a file still running writes down what it waits on. */
const REPORT_AHEAD_MS = 20_000;
const scratch = mkdtempSync(join(tmpdir(), 'cihub-t-'));
chmodSync(scratch, 0o755);
const reports = join(scratch, 'timed-out');
mkdirSync(reports);
const reporter = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'test-timeout-report.mjs')).href;
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=4', `--test-timeout=${FILE_TIMEOUT_MS}`, '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: {
    ...process.env,
    TMPDIR: scratch,
    CIHUB_TEST_TIMEOUT_REPORTS: reports,
    CIHUB_TEST_TIMEOUT_REPORT_AT_MS: String(FILE_TIMEOUT_MS - REPORT_AHEAD_MS),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import="${reporter}"`.trim(),
  },
});
for (const name of readdirSync(reports)) {
  const { file, activeResources, activeHandles } = JSON.parse(readFileSync(join(reports, name), 'utf8'));
  process.stderr.write(
    `\n${file} reached its bound; shortly before, it was waiting on: ${activeResources.join(', ') || 'nothing'} (libuv: ${activeHandles.join(', ')})\n`,
  );
}
rmSync(scratch, { recursive: true, force: true });
process.exit(result.status ?? 1);
