/**
 * GET /api/inference/pool/peers/discoverable: which unpaired Hubs can this Hub name? The
 * directories (the daemon's peer map, the Admin API with a credential, the Portal registry)
 * are asked, their answers merged (merge.ts), and each remaining name probed at /identify with
 * bounded concurrency inside one scan budget. Only an operator's request runs this: every call contacts each unpaired
 * device, so nothing on a polling path may (spec: the route is not pollable).
 */
import type { Logger } from 'pino';
import type { Clock } from '../util/clock.js';
import type { TailnetSelf } from '../tailnet/tailnet-self.js';
import type { TailnetDevice, TailscaleState } from '../tailnet/tailscale-status.js';
import type { AdminApiClient } from './admin-api.js';
import type { IdentifyAnswer } from './identify-probe.js';
import { tailnetToAsk } from './membership.js';
import { mergeCandidates, type DirectoryName } from './merge.js';
import { mapBounded } from './probe-pool.js';
import { probeOrder } from './probe-order.js';
import type { LanScan } from './lan-presence.js';
import { lanRows, type LanHub } from './lan-rows.js';

/** At most this many /identify probes in flight at once. */
export const DISCOVERY_PROBE_CONCURRENCY = 8;
/**
 * A scan's deadline, counted from the moment discover() starts: the directory reads must end
 * by then (the Admin API leg is cut at it) and no probe starts after it. The last probe started
 * ends within DISCOVERY_PROBE_TIMEOUT_MS (5 s), so a scan takes at most 25 s and answers inside
 * the CLI's 30 s wait (HUB_CALL_TIMEOUT_MS) even behind a slow Admin API and a tailnet full of
 * switched-off devices; the devices left are listed as not probed, with that reason. The daemon
 * reads that come first are bounded on their own at TAILSCALE_CALL_TIMEOUT_MS (5 s).
 */
export const DISCOVERY_SCAN_BUDGET_MS = 20_000;
/** Candidates probed per scan (those the tailnet reports offline are the first left out); the rest are counted, not contacted. */
export const MAX_DISCOVERY_CANDIDATES = 256;

export interface DiscoverableHub {
  readonly nodeFqdn: string;
  /** The first label of the name (what the UI shows; the full name on hover). */
  readonly displayName: string;
  /** A directory's device id; display only, never stored. Null when none reported one. */
  readonly deviceId: string | null;
  readonly os: string | null;
  readonly online: boolean | null;
  /** 'portal' when only the Portal directory named it; absent when a tailnet directory did. */
  readonly source?: 'portal';
  readonly poolProtocol: number;
}

/** A named device that did not answer as a Hub (the empty state lists these). */
export interface SilentDevice {
  readonly nodeFqdn: string;
  readonly os: string | null;
  readonly online: boolean | null;
  readonly reason: string;
}

export interface DirectoryReport {
  readonly directory: DirectoryName;
  /** ok: asked and answered; failed: asked, no answer; not-configured: needs a credential; unavailable: cannot be asked here. */
  readonly state: 'ok' | 'failed' | 'not-configured' | 'unavailable';
  /** How many names it gave; null when it was not asked or failed. */
  readonly named: number | null;
  /** What went wrong, or what would turn it on; null when ok. */
  readonly detail: string | null;
}

export interface Discovery {
  readonly candidates: readonly DiscoverableHub[];
  readonly notHubs: readonly SilentDevice[];
  /** Names dropped because this Hub already holds a row for them. */
  readonly excludedPaired: number;
  /** Names left unprobed past MAX_DISCOVERY_CANDIDATES. */
  readonly notProbed: number;
  readonly directories: readonly DirectoryReport[];
  /** Always present from this Hub; absent in an older Hub's answer, which the CLI may be reading. */
  readonly lan?: LanDiscovery;
}

/** The opt-in LAN source's part of a scan (guide, "How Hubs find each other"). */
export interface LanDiscovery {
  /** off: poolLanDiscovery is false (no socket exists); failed: on, but the socket could not be used. */
  readonly state: 'off' | 'ok' | 'failed';
  /** Why it failed; null otherwise. */
  readonly detail: string | null;
  /** Hubs heard on the LAN and named by no tailnet directory; never pairable from this list. */
  readonly rows: readonly LanHub[];
  /** Announcements left out because a tailnet directory or a held row already names them. */
  readonly coveredByTailnet: number;
  readonly notListed: number;
}

export interface DiscoveryDeps {
  readonly tailscale: () => Promise<TailscaleState>;
  readonly self: () => Promise<TailnetSelf>;
  /** Null without TAILSCALE_OAUTH_CLIENT_ID / _SECRET. */
  readonly adminApi: AdminApiClient | null;
  /** Every name this Hub holds a row for. */
  readonly heldNames: () => ReadonlySet<string>;
  readonly identify: (name: string) => Promise<IdentifyAnswer>;
  /** The LAN browse; only a scan calls it, and it opens nothing while the setting is off. Absent: the LAN source is off. */
  readonly lan?: { readonly id: string; browse(): Promise<LanScan> };
  readonly clock: Clock;
  readonly logger: Logger;
}

interface Directories {
  readonly daemon: readonly TailnetDevice[];
  readonly adminApi: readonly TailnetDevice[];
  readonly reports: readonly DirectoryReport[];
}

export class DiscoveryService {
  readonly #d: DiscoveryDeps;
  constructor(deps: DiscoveryDeps) {
    this.#d = deps;
  }

  /**
   * Asks each directory, without probing anything (cihub pool doctor reports this). With a
   * deadline (on the injected clock), the Admin API leg gets only the time left before it.
   */
  async directories(deadlineMs: number | null = null): Promise<Directories> {
    const [state, self] = await Promise.all([this.#d.tailscale(), this.#d.self()]);
    const reports: DirectoryReport[] = [];
    const daemon = state.connected ? state.peers : [];
    reports.push(
      state.connected
        ? { directory: 'tailscale-daemon', state: 'ok', named: daemon.length, detail: null }
        : { directory: 'tailscale-daemon', state: 'unavailable', named: null, detail: state.problem ?? 'Tailscale is not connected on this machine' },
    );
    let adminApi: readonly TailnetDevice[] = [];
    const tailnet = tailnetToAsk(state.tailnetName, self.tailnetSuffix);
    if (this.#d.adminApi === null) {
      reports.push({
        directory: 'tailscale-admin-api',
        state: 'not-configured',
        named: null,
        detail: 'set TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET, an OAuth client with devices:core:read, to list the whole tailnet',
      });
    } else if (tailnet === null) {
      reports.push({
        directory: 'tailscale-admin-api',
        state: 'unavailable',
        named: null,
        detail: 'this Hub has joined no tailnet, so there is none to ask about',
      });
    } else {
      const answer = await this.#d.adminApi.devices(tailnet, deadlineMs);
      if (answer.ok) {
        adminApi = answer.value;
        reports.push({ directory: 'tailscale-admin-api', state: 'ok', named: adminApi.length, detail: null });
      } else {
        this.#d.logger.debug({ error: answer.error }, 'the Tailscale Admin API leg of discovery failed');
        reports.push({ directory: 'tailscale-admin-api', state: 'failed', named: null, detail: answer.error });
      }
    }
    // This product has no CI Portal registration, and the spec's Portal leg names nothing today either.
    reports.push({
      directory: 'portal',
      state: 'unavailable',
      named: null,
      detail: 'this Hub is not registered with a CI Portal, and that directory names no tailnet devices today',
    });
    return { daemon, adminApi, reports };
  }

  async discover(): Promise<Discovery> {
    // One deadline for the whole scan, directories included: a slow Admin API (10 s for a token,
    // 10 s more for the list) once pushed a scan to 30 s, past the CLI's wait.
    const deadlineMs = this.#d.clock.nowMs() + DISCOVERY_SCAN_BUDGET_MS;
    const lanHeard: Promise<LanScan> = this.#d.lan?.browse() ?? Promise.resolve({ state: 'off' });
    const [dirs, self] = await Promise.all([this.directories(deadlineMs), this.#d.self()]);
    const merged = mergeCandidates({
      daemon: dirs.daemon,
      adminApi: dirs.adminApi,
      portal: [],
      paired: this.#d.heldNames(),
      selfName: self.nodeFqdn,
      tailnetSuffix: self.tailnetSuffix,
    });
    // Devices the tailnet reports offline are probed last, so they cannot spend the budget before an online Hub is reached.
    const toProbe = probeOrder(merged.candidates, MAX_DISCOVERY_CANDIDATES);
    const outOfTime: IdentifyAnswer = {
      ok: false,
      reason: `not probed: the scan's ${DISCOVERY_SCAN_BUDGET_MS / 1000} s were used up by the directories and slower devices; run discover again`,
    };
    const answers = await mapBounded(toProbe, DISCOVERY_PROBE_CONCURRENCY, async (c) =>
      this.#d.clock.nowMs() >= deadlineMs ? outOfTime : this.#d.identify(c.nodeFqdn),
    );
    const answerOf = new Map(toProbe.map((c, i) => [c, answers[i]!]));
    const candidates: DiscoverableHub[] = [];
    const notHubs: SilentDevice[] = [];
    // Both lists keep the merge's name order (the guide shows cards sorted by name); only the probing went online first.
    for (const c of merged.candidates) {
      const answer = answerOf.get(c);
      if (answer === undefined) continue;
      if (answer.ok) {
        candidates.push({
          nodeFqdn: c.nodeFqdn,
          displayName: c.nodeFqdn.split('.')[0]!,
          deviceId: c.deviceId,
          os: c.os,
          online: c.online,
          ...(c.source ? { source: c.source } : {}),
          poolProtocol: answer.poolProtocol,
        });
      } else {
        notHubs.push({ nodeFqdn: c.nodeFqdn, os: c.os, online: c.online, reason: answer.reason });
      }
    }
    const tailnetNames = new Set([...dirs.daemon, ...dirs.adminApi].map((d) => d.nodeFqdn));
    const lan = lanDiscovery(await lanHeard, { ownId: this.#d.lan?.id ?? '', selfName: self.nodeFqdn, tailnetNames, held: this.#d.heldNames() });
    return { candidates, notHubs, excludedPaired: merged.excludedPaired, notProbed: merged.candidates.length - toProbe.length, directories: dirs.reports, lan };
  }
}

function lanDiscovery(
  scan: LanScan,
  ctx: { ownId: string; selfName: string | null; tailnetNames: ReadonlySet<string>; held: ReadonlySet<string> },
): LanDiscovery {
  if (scan.state !== 'ok') return { state: scan.state, detail: scan.state === 'failed' ? scan.detail : null, rows: [], coveredByTailnet: 0, notListed: 0 };
  return { state: 'ok', detail: null, ...lanRows({ heard: scan.heard, ...ctx }) };
}
