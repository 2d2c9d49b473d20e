/**
 * `cihub pool doctor`: read-only checks of whether this Hub can pool and whether peers will
 * reach it, as records (code, verdict, what was found, what to do). Pure: the command gathers
 * the status document, what the Hub knows of its Tailscale, each peer's clock and the discovery
 * directories, and prints the records. When the Hub cannot be asked, the command reads Tailscale
 * from its own process instead and says why the Hub was not asked.
 */
import type { DirectoryReport } from '../discovery/discovery-service.js';
import { SKEW_WINDOW_MS } from '../peer-auth/verify-signed.js';
import type { PeerClock } from '../peers/peer-clock.js';
import type { PoolStatus } from '../status/pool-status.js';
import { publishCommand } from '../tailnet/tailscale-serve.js';
import { capNodeReadings, capText, uncappedFix, uncappedNames } from './render/context-caps.js';
import { hardwareFound, localPressureText } from './render/machine.js';
import type { TailscaleReport } from '../tailnet/tailscale-report.js';
import { versionSkew } from './version-skew.js';

export type Verdict = 'ok' | 'warn' | 'fail' | 'unknown';

export interface DoctorCheck {
  /** Stable code: H* the Hub itself, C* tailnet, P* pooling, E* engines, M* this machine, D* discovery and development settings, F* peers. */
  readonly code: string;
  readonly verdict: Verdict;
  readonly found: string;
  /** What to do; null when nothing is needed. */
  readonly fix: string | null;
}

/** What the Hub answered. */
export interface HubAnswers {
  readonly status: PoolStatus;
  /** What the Hub knows of its Tailscale; null when it could not be read. */
  readonly tailscale: TailscaleReport | null;
  /** Each paired peer's clock; null when it could not be read. */
  readonly clocks: readonly PeerClock[] | null;
  /** The discovery directories; null when they could not be read. */
  readonly directories: readonly DirectoryReport[] | null;
  readonly hubPort: number;
  /** This cihub's version and the one hub.json records for the Hub that answered (null: none recorded). */
  readonly versions: { readonly cli: string; readonly hub: string | null };
}

/** Why the Hub could not be asked anything (H1), and what to do. */
export interface HubNotAsked {
  readonly found: string;
  readonly fix: string;
  /**
   * not-running: no Hub answers for the data dir. older-hub: one seems to run whose hub.json
   * records no boot id, a build older than this cihub. cannot-ask: one runs that the CLI cannot
   * ask (no readable operator key or data dir, or the Hub refused its check).
   */
  readonly why: 'not-running' | 'older-hub' | 'cannot-ask';
}

/** Nothing came from the Hub: Tailscale as this process reads it, for the port the Hub has or would have. */
export interface WithoutHub {
  readonly status: null;
  readonly notAsked: HubNotAsked;
  /** Read by the CLI itself (a read that fails is in the report, as the Hub's is). */
  readonly tailscale: TailscaleReport;
  readonly hubPort: number;
}

export type DoctorInputs = HubAnswers | WithoutHub;

/** A clock this far off is reported before it is refused (signed requests allow SKEW_WINDOW_MS). */
export const CLOCK_SKEW_WARN_MS = 60_000;

const check = (code: string, verdict: Verdict, found: string, fix: string | null = null): DoctorCheck => ({ code, verdict, found, fix });

/** This Hub's name and where it came from: the status document's, or the Tailscale report's when there is none. */
interface OwnName {
  readonly nodeFqdn: string | null;
  readonly tailnetSource: 'env' | 'tailscale' | 'none';
}

function tailnetName(node: OwnName, ts: TailscaleReport | null): DoctorCheck {
  if (node.nodeFqdn === null) {
    const why = ts?.daemon.problem ?? 'this Hub has no tailnet name';
    return check(
      'C1',
      'fail',
      why,
      ts !== null && !ts.daemon.answered && ts.binary === null
        ? 'install Tailscale on this machine and connect it (tailscale up)'
        : 'connect Tailscale (tailscale up) and turn on MagicDNS for the tailnet',
    );
  }
  if (node.tailnetSource === 'env') return check('C1', 'ok', `tailnet name ${node.nodeFqdn} (HUB_NODE_FQDN stand-in)`);
  if (ts?.daemon.magicDnsEnabled === false) {
    return check(
      'C1',
      'fail',
      `tailnet name ${node.nodeFqdn}, but MagicDNS is off for the tailnet, so peers cannot resolve it`,
      'turn on MagicDNS in the Tailscale admin console (DNS page)',
    );
  }
  if (ts !== null && ts.daemon.answered && !ts.daemon.connected)
    return check('C1', 'fail', `tailnet name ${node.nodeFqdn}, but ${ts.daemon.problem ?? 'Tailscale is not connected'}`, 'connect Tailscale (tailscale up)');
  return check('C1', 'ok', `tailnet name ${node.nodeFqdn}`);
}

/** The variable a stand-in came from: with no name, only HUB_TAILNET_SUFFIX can have made the source env (tailnet/tailnet-self.ts). */
function standIn(ts: TailscaleReport): string {
  return ts.nodeFqdn === null ? 'HUB_TAILNET_SUFFIX' : 'HUB_NODE_FQDN';
}

function serveCheck(ts: TailscaleReport | null, hubPort: number): DoctorCheck {
  const publish = publishCommand(hubPort, ts?.operator.allowed !== true);
  if (ts === null) return check('C2', 'unknown', 'could not ask the Hub about its Tailscale', `publish the Hub with Tailscale Serve: ${publish}`);
  if (ts.nameSource === 'env')
    return check('C2', 'unknown', `this Hub's tailnet comes from the ${standIn(ts)} stand-in (development); Tailscale Serve is not checked`);
  const name = ts.nodeFqdn ?? "<this Hub's name>";
  if (ts.serve.verdict === 'publishes') return check('C2', 'ok', `Tailscale Serve publishes this Hub at https://${name}/ (port ${hubPort})`);
  // The config alone is not enough: an entry for the Hub's port on 127.0.0.1 reaches nothing when
  // the Hub listens on ::1, 127.0.0.2 or a LAN address only, and the Hub does not publish then.
  // Compared with false, so a Hub from before the field is judged on its config as before.
  if (ts.serve.reachableFromLoopback === false)
    return check(
      'C2',
      'fail',
      `the Hub listens on ${ts.serve.hubHost}, where Tailscale Serve cannot reach it: the Hub is published at http://127.0.0.1:${hubPort}, so https://${name}/ would not reach it`,
      `restart the Hub with HUB_HOST=127.0.0.1 (the default), or HUB_HOST=0.0.0.0 to take other interfaces as well as loopback; the Hub then publishes itself`,
    );
  switch (ts.serve.verdict) {
    case 'absent': {
      const refused = ts.lastPublish?.kind === 'refused' ? ts.lastPublish : null;
      return check(
        'C2',
        'fail',
        `Tailscale Serve does not publish this Hub at https://${name}/${refused ? " (Tailscale refused the Hub's change)" : ''}`,
        refused
          ? `run once on this machine: ${refused.command}; the Hub then publishes itself within a minute (or run ${refused.publishCommand})`
          : `run once on this machine: ${publish}`,
      );
    }
    case 'other':
      return check(
        'C2',
        'fail',
        `Tailscale Serve sends https://${name}/ to ${ts.serve.otherTarget ?? 'something else'}, not to this Hub`,
        `if that entry can go, run: ${publish}`,
      );
    case 'unknown':
      return check(
        'C2',
        'unknown',
        `could not read Tailscale Serve's config: ${ts.serve.problem ?? 'no answer'}`,
        `check with: tailscale serve status --json; to publish: ${publish}`,
      );
  }
}

function certificatesCheck(ts: TailscaleReport | null): DoctorCheck {
  if (ts === null || ts.nameSource === 'env')
    return check(
      'C3',
      'unknown',
      ts === null ? 'could not ask the Hub about its Tailscale' : `HTTPS certificates are not checked under the ${standIn(ts)} stand-in`,
    );
  const c = ts.certificates;
  if (c.verdict === 'ok') return check('C3', 'ok', c.detail);
  if (c.verdict === 'missing')
    return check(
      'C3',
      'fail',
      c.detail,
      'turn on HTTPS Certificates in the Tailscale admin console (DNS page); peers dial https://<name> with no plain-HTTP fallback',
    );
  return check('C3', 'unknown', c.detail);
}

/** `runsAs`: who the account is, the Hub's or (no Hub to ask) the CLI's own. */
function operatorCheck(ts: TailscaleReport | null, runsAs: 'the Hub' | 'cihub' = 'the Hub'): DoctorCheck {
  if (ts === null || ts.nameSource === 'env')
    return check(
      'C4',
      'unknown',
      ts === null ? 'could not ask the Hub about its Tailscale' : `operator permission is not checked under the ${standIn(ts)} stand-in`,
    );
  const o = ts.operator;
  if (o.allowed === true) return check('C4', 'ok', `Tailscale accepts changes from ${o.account} (${o.basis})`);
  if (o.allowed === null)
    return check(
      'C4',
      'unknown',
      `cannot tell whether Tailscale accepts changes from ${o.account}: ${o.basis}`,
      o.command === null ? null : `if publishing fails, run once on this machine: ${o.command}`,
    );
  // Only a problem while the Hub still has to publish itself: an existing Serve entry keeps working.
  const verdict = ts.serve.verdict === 'publishes' ? 'warn' : 'fail';
  return check(
    'C4',
    verdict,
    `Tailscale does not accept changes from ${o.account}, the account ${runsAs} runs as (${o.basis})`,
    `run once on this machine: ${o.command ?? `sudo tailscale set --operator=${o.account}`}`,
  );
}

/** Why an engine the Hub cannot reach is unreachable, and where to look. */
export function engineHint(error: string | null, url: string): string {
  const e = error ?? '';
  if (/timed? ?out|TIMEOUT|placement budget/i.test(e))
    // A silent port is a dropping firewall or an engine that took the connection and stalled (stuck, or suspended); both are seen in the field.
    return `nothing answered from ${url} in time: the engine may be stuck or suspended (restart it), or a firewall may drop the Hub's connection to that port (allow it, e.g. ufw allow from 127.0.0.1 to any port ${portOf(url)}), or point the engine's *_URL at an address the Hub can reach`;
  if (/ECONNREFUSED/.test(e))
    return `nothing listens at ${url}: start the engine, or fix its *_URL (an engine published only on its tailnet address refuses 127.0.0.1)`;
  if (/ENOTFOUND|EAI_AGAIN/.test(e)) return `the host in ${url} does not resolve: fix the engine's *_URL`;
  if (/TLS certificate not trusted/.test(e))
    return `${url} presents a certificate this machine does not trust: add its CA to the Hub's environment (NODE_EXTRA_CA_CERTS=<file>) or point the engine's *_URL at its plain http address`;
  return `check that the engine at ${url} runs and answers as the kind it is configured as`;
}

function portOf(url: string): string {
  try {
    const u = new URL(url);
    return u.port || (u.protocol === 'https:' ? '443' : '80');
  } catch {
    return '<port>';
  }
}

function enginesCheck(status: PoolStatus): DoctorCheck {
  const backends = status.localNode.backends;
  if (backends.length === 0)
    return check('E1', 'warn', 'no engine configured', 'set OLLAMA_URL, VLLM_URL, LEMONADE_URL, OMLX_URL or LLAMACPP_URL for the engines on this machine');
  const down = backends.filter((b) => !b.healthy);
  if (down.length === 0) return check('E1', 'ok', `${backends.length} of ${backends.length} engines reachable and healthy`);
  return check(
    'E1',
    'warn',
    `${backends.length - down.length} of ${backends.length} engines healthy; ${down.map((b) => `${b.id} at ${b.url}: ${b.error ?? (b.probedMsAgo === null ? 'not probed yet' : 'unhealthy')}`).join('; ')}`,
    down.map((b) => engineHint(b.error, b.url)).join(' | '),
  );
}

/** M1: the hardware tier this Hub detected and advertises, and what it was decided from. */
function hardwareCheck(status: PoolStatus): DoctorCheck | null {
  const h = status.localNode.hardware;
  if (h === undefined) return null;
  if (!h.detected) return check('M1', 'unknown', 'hardware tier: detection has not finished yet');
  if (h.tier === null) {
    // Only when it was not found: nvidia-smi on PATH that names no size (a unified-memory board's [N/A]) has nothing to fix here.
    const fix = /nvidia-smi not on PATH/.test(h.unknownBecause ?? '') ? 'put nvidia-smi on the PATH the Hub starts with, so it can size the GPU' : null;
    return check('M1', 'unknown', `hardware tier not detected, so none is advertised: ${h.unknownBecause ?? 'unknown'} (${hardwareFound(h)})`, fix);
  }
  return check('M1', 'ok', `hardware tier ${h.tier}: ${hardwareFound(h)}`);
}

/** M2: this Hub's GPU-pressure band, and whether ranking here weighs bands at all. */
function pressureCheck(status: PoolStatus): DoctorCheck | null {
  const p = status.localNode.gpuPressure;
  if (p === undefined) return null;
  const weight = status.settings.poolPressureWeight;
  const weighs = weight === 0 ? 'poolPressureWeight is 0: ranking here does not weigh bands' : `poolPressureWeight is ${weight}`;
  const found = `GPU pressure ${localPressureText(p, status.localNode.hardware)}; ${weighs}`;
  if (p.band === null && p.sampling && weight > 0) {
    return check(
      'M2',
      'warn',
      found,
      'this node ranks itself mid-band: mount the host /sys for the AMD counter, or have a timer write busyPercent to <data-dir>/state/hardware/gpu_pressure.json (docs/gpu-pressure.md)',
    );
  }
  return check('M2', 'ok', found);
}

function directoriesCheck(directories: readonly DirectoryReport[] | null): DoctorCheck {
  if (directories === null) return check('D2', 'unknown', 'could not ask the Hub which discovery directories answer');
  const ok = directories.filter((d) => d.state === 'ok');
  const failed = directories.filter((d) => d.state === 'failed');
  const found = directories.map((d) => `${d.directory}: ${d.state === 'ok' ? `${d.named} named` : d.state}`).join(', ');
  if (failed.length > 0) return check('D2', 'warn', found, failed.map((d) => `${d.directory}: ${d.detail ?? 'failed'}`).join(' | '));
  if (ok.length === 0)
    return check(
      'D2',
      'warn',
      `${found}: no directory can name a peer`,
      'connect Tailscale, or set TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET; a Hub no directory names can still be paired by address (cihub pool probe <address>)',
    );
  return check('D2', 'ok', found);
}

/**
 * F2: a node that names no context cap among capped ones, from the findings status carries, which
 * `pool status`'s Context caps block words too. Caps that differ are only reported: a node capped
 * low is often meant.
 */
function contextCapCheck(status: PoolStatus): DoctorCheck {
  const { caps } = status.contextCaps;
  if (caps.length === 0) return check('F2', 'ok', 'no node states a context cap');
  const uncapped = uncappedNames(status);
  const found = capNodeReadings(status)
    .map((n) => `${n.name}: ${capText(n.reading)}`)
    .join('; ');
  if (uncapped.length > 0) {
    return check(
      'F2',
      'warn',
      `${uncapped.join(', ')} ${uncapped.length === 1 ? 'names' : 'name'} no context cap while others do, so placement and handouts send ${uncapped.length === 1 ? 'it' : 'them'} the largest windows (${found})`,
      uncappedFix(uncapped.length),
    );
  }
  const differ = caps.length > 1 ? '; the caps differ, and a node capped low takes no larger window (often meant)' : '';
  return check('F2', 'ok', `no uncapped node among capped ones: ${found}${differ}`);
}

function clockCheck(clocks: readonly PeerClock[] | null): DoctorCheck {
  if (clocks === null) return check('F4', 'unknown', "could not ask the Hub for its peers' clocks");
  if (clocks.length === 0) return check('F4', 'ok', 'no paired peer to compare clocks with');
  const off = clocks.filter((c) => c.skewMs !== null && Math.abs(c.skewMs) > SKEW_WINDOW_MS);
  const drifting = clocks.filter((c) => c.skewMs !== null && Math.abs(c.skewMs) > CLOCK_SKEW_WARN_MS && Math.abs(c.skewMs) <= SKEW_WINDOW_MS);
  const unread = clocks.filter((c) => c.skewMs === null);
  const describe = (c: PeerClock) =>
    c.skewMs === null ? `${c.nodeFqdn}: ${c.error ?? 'unread'}` : `${c.nodeFqdn}: ${c.skewMs >= 0 ? '+' : ''}${Math.round(c.skewMs / 1000)} s`;
  const found = clocks.map(describe).join('; ');
  const fix = 'keep both clocks synchronised (NTP: timedatectl set-ntp true); signed requests allow 5 minutes of skew';
  if (off.length > 0) return check('F4', 'fail', `clocks more than 5 minutes apart: ${found}`, fix);
  if (drifting.length > 0) return check('F4', 'warn', `clocks more than a minute apart: ${found}`, fix);
  if (unread.length === clocks.length) return check('F4', 'unknown', `no peer's clock could be read: ${found}`);
  if (unread.length === 0) return check('F4', 'ok', `clocks within a minute: ${found}`);
  // A pass that listed a silent peer among the clocks it vouched for read as if that one were fine too.
  const read = clocks.filter((c) => c.skewMs !== null);
  return check(
    'F4',
    'ok',
    `clocks within a minute on the ${read.length} peer${read.length === 1 ? '' : 's'} of ${clocks.length} that answered: ${read.map(describe).join('; ')}; not read: ${unread.map(describe).join('; ')}`,
  );
}

/**
 * H2: whether this cihub and the Hub it asked run the same version. Only a Hub that answered is
 * compared: until it has, hub.json's version says nothing about what listens.
 */
function versionsCheck(versions: HubAnswers['versions']): DoctorCheck {
  const skew = versionSkew(versions.cli, versions.hub);
  if (skew === null) return check('H2', 'ok', `this cihub and the Hub both run ${versions.cli}`);
  return check('H2', 'warn', skew.found, skew.fix);
}

/**
 * H2 for a Hub whose hub.json records no boot id. Hubs began to record their version after the
 * boot id, so such a Hub is a build older than this cihub whatever its version is; but with no
 * boot id nothing may be asked of what answers, so the two cannot be compared. The restart is
 * H1's advice, named rather than repeated.
 */
const OLDER_HUB_VERSIONS = check(
  'H2',
  'unknown',
  'not judged: the Hub H1 names is a build older than this cihub (its hub.json records neither a boot id nor a version), and its version cannot be asked until it is restarted as H1 says',
);

/** H3: whether the Hub started with every variable and setting as given, or set some aside (its log says the same). */
function startupCheck(warnings: readonly string[]): DoctorCheck {
  if (warnings.length === 0) return check('H3', 'ok', 'the Hub started with every variable and setting as given');
  return check(
    'H3',
    'warn',
    `the Hub set aside at start-up: ${warnings.join(' | ')}`,
    'fix or unset what it names and restart the Hub (cihub logs --level warn shows the same lines)',
  );
}

/**
 * The checks only the Hub can answer, in the order a Hub's doctor lists them (those listed only
 * when they fail left out): the Hub's own (H*) before the Tailscale checks, the rest after them.
 */
export const HUB_ONLY_CHECKS: readonly string[] = ['H2', 'H3', 'P1', 'P2', 'E1', 'M1', 'M2', 'D2', 'P3', 'F1', 'F2', 'F4'];

const isHubsOwn = (c: DoctorCheck): boolean => c.code.startsWith('H');

/**
 * No Hub to ask: H1 first says why, the Tailscale checks are judged from what this process reads,
 * and every check only the Hub can answer reads unknown, so the list still shows what was not checked.
 */
function checksWithoutHub(inputs: WithoutHub): DoctorCheck[] {
  const { notAsked, tailscale, hubPort } = inputs;
  const name: OwnName = { nodeFqdn: tailscale.nodeFqdn, tailnetSource: tailscale.nameSource };
  const unknown = notAsked.why === 'not-running' ? 'not checked: the Hub is not running (H1)' : 'not checked: the Hub could not be asked (H1)';
  const notChecked = HUB_ONLY_CHECKS.map((code) => (code === 'H2' && notAsked.why === 'older-hub' ? OLDER_HUB_VERSIONS : check(code, 'unknown', unknown)));
  return [
    check('H1', 'fail', notAsked.found, notAsked.fix),
    ...notChecked.filter(isHubsOwn),
    tailnetName(name, tailscale),
    serveCheck(tailscale, hubPort),
    certificatesCheck(tailscale),
    operatorCheck(tailscale, 'cihub'),
    ...notChecked.filter((c) => !isHubsOwn(c)),
  ];
}

export function doctorChecks(inputs: DoctorInputs): DoctorCheck[] {
  if (inputs.status === null) return checksWithoutHub(inputs);
  const { status, tailscale, hubPort } = inputs;
  const node = status.localNode;
  const checks: DoctorCheck[] = [
    versionsCheck(inputs.versions),
    startupCheck(status.startupWarnings),
    tailnetName(node, tailscale),
    serveCheck(tailscale, hubPort),
    certificatesCheck(tailscale),
    operatorCheck(tailscale),
  ];
  checks.push(
    status.enabled
      ? check('P1', status.reason === 'partially_disabled' ? 'warn' : 'ok', `Hub Pool is on (${status.reason})`)
      : check(
          'P1',
          'fail',
          `Hub Pool is off (${status.disabledBy === 'env' ? 'HUB_POOL_USER_DISABLED in the environment' : 'poolEnabled is false'})`,
          status.disabledBy === 'env' ? 'remove HUB_POOL_USER_DISABLED=true and restart' : 'cihub pool enable',
        ),
  );
  const identity = node.identity;
  checks.push(
    identity === null
      ? check('P2', 'ok', 'no pool identity yet (made on first use)')
      : identity.identityError === null
        ? check('P2', 'ok', `identity ${identity.fingerprint ?? '(no fingerprint)'}`)
        : identity.nodeUuid === null
          ? check('P2', 'fail', `no pool identity can be made: ${identity.identityError}`, identity.identityFix)
          : check('P2', 'fail', `the identity key cannot be opened: ${identity.identityError}`, identity.identityFix),
  );
  checks.push(enginesCheck(status));
  for (const c of [hardwareCheck(status), pressureCheck(status)]) if (c !== null) checks.push(c);
  if (node.peerOriginsMap.active) {
    checks.push(
      check(
        'D1',
        'warn',
        `HUB_POOL_PEER_ORIGINS is set: peers are dialled at ${node.peerOriginsMap.entries.map((e) => `${e.name} → ${e.origin}`).join(', ')}`,
        'development only: unset it on a real tailnet',
      ),
    );
  }
  checks.push(directoriesCheck(inputs.directories));
  const containers = node.containers;
  if (containers) {
    checks.push(
      containers.socket === null
        ? check('P3', 'ok', 'container counts: no Docker socket is mounted, so none are collected (peers read "not reported")')
        : containers.rollup !== null
          ? check(
              'P3',
              'ok',
              `container counts from ${containers.socket}: ${containers.rollup.running} running of ${containers.rollup.total}${containers.shared ? '' : ' (not shared: poolShareContainerStats is off)'}`,
            )
          : check(
              'P3',
              'warn',
              `container counts not measured: ${containers.problem ?? 'no collection yet'}`,
              'mount the Docker socket the Hub can read, and set HUB_COMPOSE_PROJECTS when the Hub does not run in the compose project to count',
            ),
    );
  }
  const stuck = status.peers.filter((p) => p.pairingProblem !== null);
  if (stuck.length > 0)
    checks.push(
      check(
        'F3',
        'fail',
        stuck.map((p) => `${p.nodeFqdn}: ${p.pairingProblem!.kind.replaceAll('_', ' ')}`).join('; '),
        stuck.map((p) => p.pairingProblem!.action).join(' | '),
      ),
    );
  const refusing = status.peers.filter((p) => p.pairingProblem === null && p.probeFailure !== null && p.probeFailure.kind !== 'unreachable');
  // Two requests that crossed are both pending: neither Hub refuses the other for it.
  const halfPaired = stuck.filter((p) => p.pairingProblem!.kind !== 'crossed_requests');
  checks.push(
    refusing.length === 0
      ? check(
          'F1',
          'ok',
          // A half-paired peer refuses this Hub too; F3 names it, and this line must not say otherwise.
          halfPaired.length === 0
            ? 'no peer refuses this Hub, and this Hub can authenticate to each'
            : 'no peer refuses this Hub beyond the pairings F3 names, and this Hub can authenticate to the others',
        )
      : check(
          'F1',
          'fail',
          refusing.map((p) => `${p.nodeFqdn}: ${p.probeFailure!.kind.replace('_', ' ')}`).join('; '),
          refusing.map((p) => p.probeFailure!.action).join(' | '),
        ),
  );
  checks.push(contextCapCheck(status));
  checks.push(clockCheck(inputs.clocks));
  return checks;
}
