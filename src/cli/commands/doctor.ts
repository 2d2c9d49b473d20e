/** `cihub pool doctor`: read-only checks; exits non-zero when one needs action. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { PoolStatus } from '../../status/pool-status.js';
import { doctorChecks, servePublishesPort, type DoctorCheck, type ServeInfo } from '../doctor-checks.js';
import { callHub, CliError, findHub } from '../hub-client.js';
import { table } from '../render/pool-status.js';
import { writeOut } from '../output.js';
import type { CommonOptions } from './pool.js';

const MARK: Readonly<Record<DoctorCheck['verdict'], string>> = { ok: '✓', warn: '!', fail: '✗', unknown: '?' };

async function readServe(port: number): Promise<ServeInfo> {
  try {
    const { stdout } = await promisify(execFile)('tailscale', ['serve', 'status', '--json'], { timeout: 5_000 });
    return { publishesPort: servePublishesPort(JSON.parse(stdout), port) };
  } catch {
    return null;
  }
}

export async function poolDoctor(opts: CommonOptions): Promise<string> {
  const hub = findHub(opts.dataDir);
  const status = await callHub<PoolStatus>(hub, 'GET', '/api/inference/pool/status');
  const port = Number(new URL(hub.url).port);
  const checks = doctorChecks(status, await readServe(port), port);
  const failed = checks.filter((c) => c.verdict === 'fail');
  const text = opts.json
    ? `${JSON.stringify({ checks }, null, 2)}\n`
    : `${table(checks.map((c) => [`${MARK[c.verdict]} ${c.code}`, c.found, c.fix === null ? '' : `→ ${c.fix}`])).join('\n')}\n`;
  if (failed.length > 0) {
    writeOut(text);
    throw new CliError(`${failed.length} check${failed.length === 1 ? '' : 's'} need${failed.length === 1 ? 's' : ''} action: ${failed.map((c) => c.code).join(', ')}.`);
  }
  return text;
}
