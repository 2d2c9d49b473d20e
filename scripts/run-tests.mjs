#!/usr/bin/env node
// Runs every compiled *.test.js under dist/ with node's test runner.
// Unit tests sit beside their source (dist/src/**, dist/bench/**); integration tests start real Hub
// processes (dist/test/**), so concurrency is bounded for a two-core machine.
// dist/test/hosts/ is left out: it needs root and network namespaces, and runs through
// `npm run test:hosts` (scripts/test-hosts.mjs).
import { existsSync, readdirSync, statSync } from 'node:fs';
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
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
