/**
 * Tools some tests run (zsh, fish, systemd-analyze, python3 and PyYAML). A test never skips for a
 * missing one (docs/testing.md): it fails, naming the tool and the .ci/run line that installs it,
 * so the same line installs it here. The line is checked against .ci/run, so the message cannot
 * go on naming a line that CI no longer has.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './hub-process.js';

/** Whether `command -v tool` finds it, the test .ci/run makes too. */
export function onPath(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
}

/** Fails unless `present`, saying which tool is missing and which line of .ci/run installs it. */
export function assertInstalled(tool: string, present: boolean, ciLine: string): void {
  const ci = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8');
  assert.ok(ci.includes(ciLine), `.ci/run no longer has the line this test names for ${tool}: ${ciLine}`);
  assert.ok(present, `${tool} is not installed here; .ci/run installs it with: ${ciLine}`);
}
