/**
 * `--data-dir` is the one option every `cihub` command accepts. The commands that read no data
 * dir used to parse it and drop it without a word (`cihub --data-dir /srv/cihub demo` ran on
 * temporary dirs all the same), so they refuse it as a usage error before they start anything.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CIHUB_BIN, freshDataDir } from '../helpers/hub-process.js';

interface Outcome {
  /** The exit code, or 'ran' when the command printed its output instead of refusing. */
  readonly code: number | null | 'ran';
  readonly stderr: string;
}

/**
 * Runs `cihub --data-dir <dir> ...args` until it exits or first writes to stdout. A command that
 * ignores the option goes on to run (an engine listens until stopped), so its first line of
 * output ends the wait and the process is stopped.
 */
function runWithDataDir(args: readonly string[], dataDir: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CIHUB_BIN, '--data-dir', dataDir, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: freshDataDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let settled = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => {
      if (settled) return;
      settled = true;
      child.once('close', () => resolve({ code: 'ran', stderr }));
      child.kill('SIGTERM');
    });
    child.once('close', (code) => {
      if (settled) return;
      settled = true;
      resolve({ code, stderr });
    });
  });
}

describe('commands that read no data dir refuse --data-dir', () => {
  for (const args of [
    ['demo', '--once'],
    ['dev', 'engine', '--port', '0', '--dialect', 'ollama', '--model', 'qwen3:8b'],
    ['dev', 'llama', '--port', '0'],
    ['completion', 'bash'],
  ]) {
    const command = args[0] === 'dev' ? `dev ${args[1]}` : args[0]!;
    it(`cihub --data-dir <dir> ${args.join(' ')}: exit 2, naming the option, before it starts`, async () => {
      const res = await runWithDataDir(args, join(freshDataDir(), 'hub'));
      assert.equal(res.code, 2, `expected a usage error; stderr: ${res.stderr}`);
      assert.match(res.stderr, new RegExp(`^cihub ${command} takes no --data-dir \\(`));
    });
  }
});
