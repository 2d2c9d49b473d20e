/**
 * `cihub pool doctor`: read-only checks; exits non-zero when one fails. Everything is asked of
 * the Hub, which runs Tailscale's CLI and dials its peers itself, so the answers describe what
 * the Hub sees rather than what the operator's shell sees. When no Hub can be asked (none runs
 * for the data dir, this account cannot read its key, or the Hub refuses the check made before
 * the key is sent), doctor is still what an operator runs: it says why (H1), judges Tailscale
 * from its own process for the port the Hub has or would take, and lists what only the Hub could
 * answer as unknown.
 */
import type { DirectoryReport } from '../../discovery/discovery-service.js';
import { readHubInfo } from '../../config/data-dir.js';
import { EnvError, loadEnv, type Env } from '../../config/env.js';
import type { PeerClock } from '../../peers/peer-clock.js';
import { envTailscaleReport } from '../../tailnet/env-tailscale.js';
import type { TailscaleReport } from '../../tailnet/tailscale-report.js';
import { systemClock } from '../../util/clock.js';
import { doctorChecks, type DoctorCheck, type DoctorInputs } from '../doctor-checks.js';
import {
  callHub,
  CliError,
  findHub,
  HubNotAnsweringError,
  HubNotRunningError,
  HubUnreachableError,
  OlderHubUncheckedError,
  UsageError,
  type HubTarget,
} from '../hub-client.js';
import { fetchPoolStatus } from '../fetch-pool-status.js';
import { table } from '../render/pool-status.js';
import { lineSafe, writeOut } from '../output.js';
import { CIHUB_VERSION } from '../version.js';
import type { CommonOptions } from './pool.js';

const MARK: Readonly<Record<DoctorCheck['verdict'], string>> = { ok: '✓', warn: '!', fail: '✗', unknown: '?' };

export interface DoctorOptions extends CommonOptions {
  /** The environment a Hub started from this shell would read: its port and `tailscale`, for the checks made without a Hub. */
  readonly env: Env;
}

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

async function askHub(dataDir: string): Promise<DoctorInputs> {
  // The version warning is dropped: H2 reports the same finding among the checks.
  const hub: HubTarget = { ...findHub(dataDir), warn: () => undefined };
  const status = await fetchPoolStatus(hub);
  const [tailscale, clocks, directories] = await Promise.all([
    optional(() => callHub<TailscaleReport>(hub, 'GET', '/api/inference/pool/tailscale')),
    optional(async () => (await callHub<{ peers: PeerClock[] }>(hub, 'GET', '/api/inference/pool/peers/clocks')).peers),
    optional(async () => (await callHub<{ directories: DirectoryReport[] }>(hub, 'GET', '/api/inference/pool/peers/directories')).directories),
  ]);
  return { status, tailscale, clocks, directories, hubPort: Number(new URL(hub.url).port), versions: { cli: CIHUB_VERSION, hub: hub.version } };
}

/**
 * Tailscale as this process reads it, for the port hub.json records (a Hub that stopped, one this
 * account cannot authenticate to, or one that refused the CLI's check) or else the port
 * `cihub serve` would take here.
 */
async function withoutHub(opts: DoctorOptions, unreachable: HubUnreachableError): Promise<DoctorInputs> {
  let env;
  try {
    env = loadEnv(opts.env, { dataDir: opts.dataDir });
  } catch (err) {
    // The value `cihub serve` would refuse to start with: the environment is what to fix first.
    if (err instanceof EnvError) throw new UsageError(err.message);
    throw err;
  }
  const hubPort = readHubInfo(opts.dataDir)?.port ?? env.port;
  return {
    status: null,
    notAsked: {
      found: unreachable.found,
      fix: unreachable.fix,
      // A Hub that runs but is held up is not "not running": its checks could not be asked.
      why:
        unreachable instanceof OlderHubUncheckedError
          ? 'older-hub'
          : unreachable instanceof HubNotRunningError && !(unreachable instanceof HubNotAnsweringError)
            ? 'not-running'
            : 'cannot-ask',
    },
    tailscale: await envTailscaleReport(env, hubPort, systemClock),
    hubPort,
  };
}

export async function poolDoctor(opts: DoctorOptions): Promise<string> {
  let inputs: DoctorInputs;
  let unreachable: HubUnreachableError | null = null;
  try {
    inputs = await askHub(opts.dataDir);
  } catch (err) {
    if (!(err instanceof HubUnreachableError)) throw err;
    unreachable = err;
    inputs = await withoutHub(opts, err);
  }
  const checks = doctorChecks(inputs);
  const failed = checks.filter((c) => c.verdict === 'fail');
  const text = opts.json
    ? `${JSON.stringify({ checks }, null, 2)}\n`
    : `${table(lineSafe(checks).map((c) => [`${MARK[c.verdict]} ${c.code}`, c.found, c.fix === null ? '' : `→ ${c.fix}`])).join('\n')}\n`;
  if (failed.length > 0) {
    writeOut(text);
    const summary = `${failed.length} check${failed.length === 1 ? '' : 's'} need${failed.length === 1 ? 's' : ''} action: ${failed.map((c) => c.code).join(', ')}.`;
    // Exit 3 still tells a script that no Hub runs here, as it does for every other command.
    if (unreachable instanceof HubNotRunningError) throw new HubNotRunningError(summary, unreachable.found, unreachable.fix);
    throw new CliError(summary);
  }
  return text;
}
