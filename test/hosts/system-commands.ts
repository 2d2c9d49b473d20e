/**
 * The harness's only way to touch the machine: run `ip`, `openssl` and friends as child
 * processes, by absolute path, with their output captured so a failure says what the tool said.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where `ip` and `openssl` live on Debian, Ubuntu and most other Linux systems. */
const SYSTEM_DIRS = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The absolute path of a system tool, or null when it is not installed. */
export function findTool(name: string): string | null {
  for (const dir of SYSTEM_DIRS) if (existsSync(join(dir, name))) return join(dir, name);
  return null;
}

export function toolPath(name: string): string {
  const path = findTool(name);
  if (path === null) throw new Error(`the hosts harness needs ${name}, which is not installed in ${SYSTEM_DIRS.join(', ')}`);
  return path;
}

/** Runs a tool to completion; throws with its stderr when it exits non-zero. */
export function run(tool: string, args: readonly string[]): string {
  try {
    return execFileSync(toolPath(tool), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: string; status?: number };
    throw new Error(`${tool} ${args.join(' ')} failed (exit ${e.status ?? '?'}): ${String(e.stderr ?? '').trim()}`);
  }
}

/** Runs a tool and ignores its failure (clean-up of what may already be gone). */
export function tryRun(tool: string, args: readonly string[]): boolean {
  try {
    run(tool, args);
    return true;
  } catch {
    return false;
  }
}
