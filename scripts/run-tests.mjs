#!/usr/bin/env node
// Runs every compiled *.test.js under dist/ with node's test runner.
// Unit tests sit beside their source (dist/src/**, dist/bench/**); integration tests start real Hub
// processes (dist/test/**), so concurrency is bounded for a two-core machine: four files at once.
// Most integration files spend their time waiting out health polls: at two files the cores sat 23%
// idle through a full run (20.3 min), at three 32% idle after the checks (19.5 min), at four 21%
// (16.6 min; vmstat, 2026-12-06 and 07). The integration and browser files go first and the unit
// files last (15.2 min): the units are short and busy the cores, so they fill time the last long
// integration files spend waiting, where sorted by path those ran alone at the end (60 to 100%
// idle over the last minutes). Within that, files start longest first by the durations in
// scripts/test-durations.json, so no long file is left to start late and run alone; a file it
// does not list yet starts ahead of the ones it does. `node scripts/run-tests.mjs --record-durations`
// writes that file again from the run (scripts/test-durations-reporter.mjs).
// dist/test/hosts/ is left out: it needs root and network namespaces, and runs through
// `npm run test:hosts` (scripts/test-hosts.mjs).
// The tests make their data dirs, fake daemons and browser profiles under os.tmpdir(); the run
// points TMPDIR at a directory of its own and removes it at the end, so a run leaves nothing in
// /tmp (before, each full run left about 200 directories there). The name is short because a
// fake Docker socket lives two levels down and macOS caps a socket path at 104 bytes. It is
// opened to others as /tmp is, since some tests run a Hub as another account (attack-store).
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

const DURATIONS = join('scripts', 'test-durations.json');
const args = process.argv.slice(2);
const record = args.includes('--record-durations');
const filter = args.filter((a) => a !== '--record-durations');
/** Seconds each file took when last recorded; a file it does not list counts as longest. */
const recorded = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};
const took = (file) => recorded[file] ?? Infinity;
const longestFirst = (files) => files.sort().sort((a, b) => took(b) - took(a));
const files = [...longestFirst(collect('dist/test', [])), ...longestFirst([...collect('dist/src', []), ...collect('dist/bench', [])])]
  .filter((f) => !f.startsWith(join('dist', 'test', 'hosts')))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)));
if (files.length === 0) {
  process.stderr.write('no test files matched\n');
  process.exit(1);
}
const scratch = mkdtempSync(join(tmpdir(), 'cihub-t-'));
chmodSync(scratch, 0o755);
const measured = join(scratch, 'durations.json');
const reporters = record
  ? [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/test-durations-reporter.mjs',
      `--test-reporter-destination=${measured}`,
    ]
  : ['--test-reporter=spec'];
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=4', ...reporters, ...files], {
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: scratch },
});
if (record && existsSync(measured)) {
  // Merged, so a run of some files keeps what the others took.
  const merged = { ...recorded, ...JSON.parse(readFileSync(measured, 'utf8')) };
  const sorted = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((file) => [file, merged[file]]),
  );
  writeFileSync(DURATIONS, `${JSON.stringify(sorted, null, 1)}\n`);
}
rmSync(scratch, { recursive: true, force: true });
process.exit(result.status ?? 1);
