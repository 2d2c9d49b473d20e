#!/usr/bin/env node
// Runs every compiled *.test.js under dist/ with node's test runner.
// Unit tests sit beside their source (dist/src/**, dist/bench/**); integration tests start real Hub
// processes (dist/test/**), so concurrency is bounded for a two-core machine: three files at once.
// Most integration files spend their time waiting out health polls, so at two the cores sat 23%
// idle through a full run (vmstat, 2026-12-06) and the run took 20.3 min.
// dist/test/hosts/ is left out: it needs root and network namespaces, and runs through
// `npm run test:hosts` (scripts/test-hosts.mjs).
// The tests make their data dirs, fake daemons and browser profiles under os.tmpdir(); the run
// points TMPDIR at a directory of its own and removes it at the end, so a run leaves nothing in
// /tmp (before, each full run left about 200 directories there). The name is short because a
// fake Docker socket lives two levels down and macOS caps a socket path at 104 bytes. It is
// opened to others as /tmp is, since some tests run a Hub as another account (attack-store).
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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

const filter = process.argv.slice(2);
const files = [...collect('dist/src', []), ...collect('dist/bench', []), ...collect('dist/test', [])]
  .filter((f) => !f.startsWith(join('dist', 'test', 'hosts')))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();
if (files.length === 0) {
  process.stderr.write('no test files matched\n');
  process.exit(1);
}
const scratch = mkdtempSync(join(tmpdir(), 'cihub-t-'));
chmodSync(scratch, 0o755);
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=3', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: scratch },
});
rmSync(scratch, { recursive: true, force: true });
process.exit(result.status ?? 1);
