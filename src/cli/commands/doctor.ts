/**
 * `cihub pool doctor`: read-only checks; exits non-zero when one fails. Everything is asked of
 * the Hub, which runs Tailscale's CLI and dials its peers itself, so the answers describe what
 * the Hub sees rather than what the operator's shell sees.
 */
import type { DirectoryReport } from '../../discovery/discovery-service.js';
import type { PeerClock } from '../../peers/peer-clock.js';
import type { TailscaleReport } from '../../tailnet/tailscale-report.js';
import { doctorChecks, type DoctorCheck } from '../doctor-checks.js';
import { callHub, CliError, findHub, type HubTarget } from '../hub-client.js';
import { fetchPoolStatus } from '../fetch-pool-status.js';
import { table } from '../render/pool-status.js';
import { lineSafe, writeOut } from '../output.js';
import type { CommonOptions } from './pool.js';

const MARK: Readonly<Record<DoctorCheck['verdict'], string>> = { ok: '✓', warn: '!', fail: '✗', unknown: '?' };

/**
 * A read the checks can do without (asked after the status read proved the Hub answers): its
 * check reads unknown instead of the doctor stopping.
 */
async function optional<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch {
    return null;
  }
}

export async function poolDoctor(opts: CommonOptions): Promise<string> {
  const hub: HubTarget = findHub(opts.dataDir);
  const status = await fetchPoolStatus(hub);
  const [tailscale, clocks, directories] = await Promise.all([
    optional(() => callHub<TailscaleReport>(hub, 'GET', '/api/inference/pool/tailscale')),
    optional(async () => (await callHub<{ peers: PeerClock[] }>(hub, 'GET', '/api/inference/pool/peers/clocks')).peers),
    optional(async () => (await callHub<{ directories: DirectoryReport[] }>(hub, 'GET', '/api/inference/pool/peers/directories')).directories),
  ]);
  const checks = doctorChecks({ status, tailscale, clocks, directories, hubPort: Number(new URL(hub.url).port) });
  const failed = checks.filter((c) => c.verdict === 'fail');
  const text = opts.json
    ? `${JSON.stringify({ checks }, null, 2)}\n`
    : `${table(lineSafe(checks).map((c) => [`${MARK[c.verdict]} ${c.code}`, c.found, c.fix === null ? '' : `→ ${c.fix}`])).join('\n')}\n`;
  if (failed.length > 0) {
    writeOut(text);
    throw new CliError(
      `${failed.length} check${failed.length === 1 ? '' : 's'} need${failed.length === 1 ? 's' : ''} action: ${failed.map((c) => c.code).join(', ')}.`,
    );
  }
  return text;
}
