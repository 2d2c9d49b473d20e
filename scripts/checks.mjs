#!/usr/bin/env node
// What `npm test` runs before the tests: the type-check and build, the dashboard's build, lint and
// the formatting check. They read the sources and write to separate places (dist/, web/dist/, the
// lint cache), so they run at once: one after another they took about 3.5 min of a 23-min run on
// this two-core machine, most of it tsc and typed eslint, each on one core. Each one's output is
// printed whole when it ends, so two never interleave; the run fails if any of them failed.
import { spawn } from 'node:child_process';

const CHECKS = [
  ['type-check and build', 'npx', ['tsc', '-p', 'tsconfig.json']],
  ['dashboard build', 'npm', ['run', '--silent', 'build:web']],
  ['lint', 'npm', ['run', '--silent', 'lint']],
  ['formatting', 'npm', ['run', '--silent', 'format:check']],
];

function run([name, command, args]) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    let finished = false;
    // 'error' (the command could not start) can be followed by 'close': the first one reports.
    const finish = (code, error) => {
      if (finished) return;
      finished = true;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const verdict = code === 0 ? 'passed' : error ? `could not run: ${error.message}` : `failed (exit ${code})`;
      process.stdout.write(`${Buffer.concat(output).toString()}${name}: ${verdict} in ${seconds} s\n`);
      resolve(code === 0);
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(code, null));
  });
}

const results = await Promise.all(CHECKS.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
