/**
 * `tailscale status --json` read into the record the Hub works with (protocols.md §6.1). The
 * document is untrusted input from another program, so it goes through a zod schema; every
 * field is optional because older daemons omit some (CurrentTailnet, CertDomains) and a
 * logged-out daemon sends empty strings. A document the schema refuses reads as "not
 * connected", like a daemon that does not answer.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { normalizePeerName, normalizeTailnetSuffix } from './peer-name.js';
import type { TailscaleRun } from './tailscale-exec.js';

/** A peer stored by the daemon, or a device listed by the Admin API, in one shape. */
export interface TailnetDevice {
  /** MagicDNS name without the trailing dot, normalised; the identity discovery folds on. */
  readonly nodeFqdn: string;
  /** The OS host name; display only. Null when not reported. */
  readonly hostName: string | null;
  /** linux, macOS, windows, ...; null when not reported. */
  readonly os: string | null;
  /** Connected to the control plane; null when the directory does not say. */
  readonly online: boolean | null;
  /** The directory's device id (display value only); null when not reported. */
  readonly deviceId: string | null;
}

export interface TailscaleState {
  /** The daemon answered with a status document. */
  readonly answered: boolean;
  /** BackendState: Running, NeedsLogin, Stopped, ...; null when no document. */
  readonly backendState: string | null;
  /** BackendState is Running. */
  readonly connected: boolean;
  readonly version: string | null;
  /** This node's MagicDNS name; null when the daemon reports none (logged out). */
  readonly nodeFqdn: string | null;
  readonly tailnetSuffix: string | null;
  /** CurrentTailnet.Name (e.g. alice@example.com), which the Admin API is asked about; null when not reported. */
  readonly tailnetName: string | null;
  /** Whether MagicDNS is on; null when the daemon does not say (older daemons). */
  readonly magicDnsEnabled: boolean | null;
  /** Names HTTPS certificates can be issued for; null when the daemon does not report them. */
  readonly certDomains: readonly string[] | null;
  /** This node's Tailscale addresses (TailscaleIPs), IPv4 first; empty when the daemon reports none (logged out). */
  readonly tailscaleIps: readonly string[];
  /** The daemon's own health warnings (empty when fine). */
  readonly health: readonly string[];
  /** Every peer in the daemon's map that has a usable MagicDNS name. */
  readonly peers: readonly TailnetDevice[];
  /** Why this node is not connected, in words; null when connected. */
  readonly problem: string | null;
}

const optionalText = z.string().max(1024).optional().catch(undefined);
/** A node has one IPv4 and one IPv6 tailnet address; a longer list is not read. */
const MAX_NODE_IPS = 16;
const optionalBool = z.boolean().optional().catch(undefined);
const PEER = z
  .object({
    ID: optionalText,
    HostName: optionalText,
    DNSName: optionalText,
    OS: optionalText,
    Online: optionalBool,
    TailscaleIPs: z.array(z.string().max(64)).max(MAX_NODE_IPS).nullish().catch(undefined),
  })
  .passthrough();
/** The keys the Hub reads; anything else the daemon sends is ignored. */
const STATUS = z
  .object({
    Version: optionalText,
    BackendState: optionalText,
    Self: PEER.nullish().catch(undefined),
    MagicDNSSuffix: optionalText,
    CurrentTailnet: z.object({ Name: optionalText, MagicDNSSuffix: optionalText, MagicDNSEnabled: optionalBool }).nullish().catch(undefined),
    CertDomains: z.array(z.string().max(1024)).max(1024).nullish().catch(undefined),
    TailscaleIPs: z.array(z.string().max(64)).max(MAX_NODE_IPS).nullish().catch(undefined),
    Health: z.array(z.string().max(4096)).max(256).nullish().catch(undefined),
    // Bounded: a peer map past this is not a tailnet this Hub would list anyway.
    Peer: z.record(z.string(), PEER).nullish().catch(undefined),
  })
  .passthrough();

/** Peers read from one status document: past this many, the rest are ignored. */
export const MAX_STATUS_PEERS = 10_000;

function nameOf(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const result = normalizePeerName(raw);
  return result.ok ? result.name : null;
}

function textOrNull(raw: string | undefined): string | null {
  return raw === undefined || raw.trim() === '' ? null : raw;
}

export function deviceFromPeer(peer: z.infer<typeof PEER>): TailnetDevice | null {
  const nodeFqdn = nameOf(peer.DNSName);
  if (nodeFqdn === null) return null;
  return { nodeFqdn, hostName: textOrNull(peer.HostName), os: textOrNull(peer.OS), online: peer.Online ?? null, deviceId: textOrNull(peer.ID) };
}

function notAnswered(problem: string): TailscaleState {
  return {
    answered: false,
    backendState: null,
    connected: false,
    version: null,
    nodeFqdn: null,
    tailnetSuffix: null,
    tailnetName: null,
    magicDnsEnabled: null,
    certDomains: null,
    tailscaleIps: [],
    health: [],
    peers: [],
    problem,
  };
}

/**
 * The process that runs `tailscale`, as its sentences name it: the Hub, or the CLI judging
 * Tailscale itself when no Hub can be asked (`cihub pool doctor`), whose PATH and account are
 * the shell's.
 */
export type TailscaleCaller = 'hub' | 'cli';

/** Whose PATH the tailscale command was looked for on. */
const CALLER_PATH: Readonly<Record<TailscaleCaller, string>> = { hub: "this Hub's PATH", cli: 'the PATH cihub runs with' };

/** Why a status call produced no document, in words an operator can act on. */
export function runProblem(run: Exclude<TailscaleRun, { ok: true }>, caller: TailscaleCaller = 'hub'): string {
  switch (run.kind) {
    case 'missing':
      return `the tailscale command is not on ${CALLER_PATH[caller]}`;
    case 'timeout':
      return 'tailscale did not answer in time';
    case 'too-large':
      return 'tailscale printed more than this Hub reads';
    case 'failed':
      return `tailscale failed${run.stderr === '' ? '' : `: ${run.stderr.split('\n')[0]}`}`;
  }
}

const BACKEND_PROBLEM: Readonly<Record<string, string>> = {
  NeedsLogin: 'Tailscale is logged out on this machine (run tailscale up)',
  NeedsMachineAuth: 'this machine waits for approval in the Tailscale admin console',
  Stopped: 'Tailscale is stopped on this machine (run tailscale up)',
  Starting: 'Tailscale is still starting',
  NoState: 'the Tailscale daemon has no state yet',
};

/** The addresses that are IPs, IPv4 first (the order is not promised by the daemon: protocols.md §6.1). */
function ownAddresses(raw: readonly string[]): string[] {
  const ips = raw.filter((a) => isIP(a) !== 0);
  return [...ips.filter((a) => isIP(a) === 4), ...ips.filter((a) => isIP(a) === 6)];
}

/** One run of `tailscale status --json`, read. Never throws. */
export function readTailscaleStatus(run: TailscaleRun, caller: TailscaleCaller = 'hub'): TailscaleState {
  if (!run.ok) return notAnswered(runProblem(run, caller));
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    return notAnswered('tailscale status --json printed something that is not JSON');
  }
  return parseTailscaleStatusDocument(json);
}

/** A status document, parsed. */
export function parseTailscaleStatusDocument(json: unknown): TailscaleState {
  const parsed = STATUS.safeParse(json);
  if (!parsed.success) return notAnswered('tailscale status --json printed a document this Hub does not understand');
  const s = parsed.data;
  const current = s.CurrentTailnet ?? null;
  // The top-level MagicDNSSuffix is the older spelling of CurrentTailnet.MagicDNSSuffix.
  const rawSuffix = textOrNull(current?.MagicDNSSuffix) ?? textOrNull(s.MagicDNSSuffix);
  const backendState = textOrNull(s.BackendState);
  const connected = backendState === 'Running';
  const peers: TailnetDevice[] = [];
  for (const peer of Object.values(s.Peer ?? {}).slice(0, MAX_STATUS_PEERS)) {
    const device = deviceFromPeer(peer);
    if (device !== null) peers.push(device);
  }
  return {
    answered: true,
    backendState,
    connected,
    version: textOrNull(s.Version),
    nodeFqdn: nameOf(s.Self?.DNSName),
    tailnetSuffix: rawSuffix === null ? null : normalizeTailnetSuffix(rawSuffix),
    tailnetName: textOrNull(current?.Name),
    magicDnsEnabled: current?.MagicDNSEnabled ?? null,
    certDomains: s.CertDomains === undefined ? null : (s.CertDomains ?? []).map((d) => d.toLowerCase().replace(/\.$/, '')),
    tailscaleIps: ownAddresses(s.TailscaleIPs ?? s.Self?.TailscaleIPs ?? []),
    health: s.Health ?? [],
    peers,
    problem: connected ? null : (BACKEND_PROBLEM[backendState ?? ''] ?? `Tailscale reports ${backendState ?? 'no backend state'}`),
  };
}
