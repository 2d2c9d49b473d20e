/**
 * Temporary directories a test makes, gone again when its process ends, whatever the outcome.
 *
 * `scripts/run-tests.mjs` points TMPDIR at a directory of its own and removes that at the end,
 * but a file run on its own (`node --test dist/...`, the usual way while working on it) writes
 * straight into /tmp, and each such run left its directories there: 754 `cihub-*` ones on the
 * development machine on 2026-12-07, 577 of them Hub data dirs (`cihub-test-*`), most of the rest
 * the SQLite files of peer and store unit tests.
 *
 * The removal runs on the process's `exit` event, not in a node:test `after` hook: the helpers
 * that make these directories (a Hub's data dir above all) are called from inside tests, hooks
 * and describe bodies alike, and from bench scripts outside the test runner, where an `after`
 * would have no test to belong to. `exit` comes once nothing is left to run (a Hub a test forgot
 * to stop keeps the process alive through its pipes), and also after an explicit process.exit().
 * A process killed outright removes nothing; the runner's own TMPDIR covers that in a full run.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Retries of a removal that meets ENOTEMPTY or EBUSY while a killed writer's last write lands. */
const REMOVE_RETRIES = 10;
const REMOVE_RETRY_DELAY_MS = 50;

const dirs = new Set<string>();
const writers = new Set<ChildProcess>();
let hooked = false;

/** A fresh directory `<prefix>XXXXXX` under the system's temporary directory, removed when this process exits. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  hookExit();
  return dir;
}

/**
 * A process that may write into a scratch dir (a Hub into its data dir): if it is still running
 * when this process exits, it is killed before any directory is removed, so a removal does not
 * race its writes (ENOTEMPTY).
 */
export function writesIntoScratch(child: ChildProcess): void {
  writers.add(child);
  child.once('exit', () => writers.delete(child));
  hookExit();
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', removeAll);
}

function removeAll(): void {
  for (const child of writers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: REMOVE_RETRIES, retryDelay: REMOVE_RETRY_DELAY_MS });
    } catch (err) {
      // Loud, and the file fails: a directory a test cannot remove is a fault of that test to see.
      process.stderr.write(`could not remove the test's scratch dir ${dir}: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  }
}
