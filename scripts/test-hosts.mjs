#!/usr/bin/env node
// `npm run test:hosts`: the Hubs-on-separate-hosts suite (test/hosts/, docs/testing.md "Hosts").
// Needs Linux and root (network namespaces). Says plainly when this machine cannot run it and
// exits 2; `--check` only answers that question (exit 0: it can). After the run it looks for
// anything of the harness left on the machine (namespaces, links, hosts files, temp dirs): a
// leftover fails the run, and is removed.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const harness = 'dist/test/hosts/harness.js';
if (!existsSync(harness)) {
  process.stderr.write(`test:hosts: ${harness} is missing; build first (npx tsc -p tsconfig.json)\n`);
  process.exit(1);
}
const { hostsUnavailable, harnessLeftovers, removeLeftovers } = await import(`../${harness}`);

const why = hostsUnavailable();
if (why !== null) {
  process.stdout.write(`test:hosts cannot run on this machine: ${why}\n`);
  process.exit(2);
}
if (process.argv.includes('--check')) {
  process.stdout.write('test:hosts can run here: network namespaces can be created\n');
  process.exit(0);
}

const dir = 'dist/test/hosts';
const filter = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.js'))
  .map((f) => join(dir, f))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();
if (files.length === 0) {
  process.stderr.write('no hosts test files matched\n');
  process.exit(1);
}
// One file at a time: every file makes the same network, and the harness runs one at a time.
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files], { stdio: 'inherit' });

const left = harnessLeftovers();
if (left.length > 0) {
  process.stderr.write(`test:hosts: the harness left these behind (now removed):\n${left.map((l) => `  ${l}`).join('\n')}\n`);
  removeLeftovers();
  process.exit(1);
}
process.stdout.write('test:hosts: nothing of the harness is left (no namespaces, links, hosts files or temp dirs)\n');
process.exit(result.status ?? 1);
