/**
 * A fake `tailscale` executable on PATH for tests (the one part of the system that cannot run
 * here). It prints recorded shapes of `tailscale status --json` and `tailscale serve status
 * --json` (protocols.md §6) from a state file, and applies `tailscale serve --bg` to it, so a
 * real Hub process finds it through PATH like the real CLI. The named states below are the
 * ones the issue asks the Hub to be tried against.
 */
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { writeFileAtomic } from '../../src/util/atomic-write.js';
import { scratchDir } from './scratch-dir.js';
import { REPO_ROOT } from './hub-process.js';

export const FAKE_TAILNET_SUFFIX = 'tail0.ts.net';
export const FAKE_TAILNET_NAME = 'operator@example.com';

export interface FakeDevice {
  readonly host: string;
  readonly os?: string;
  readonly online?: boolean;
}

/** What the fake answers; written to state.json beside the script. */
export interface FakeTailscaleState {
  /** The `status --json` document; null: the daemon is not running (the CLI exits 1). */
  status: Record<string, unknown> | null;
  /** The serve config (`serve status --json`); {} when nothing is served. */
  serve?: Record<string, unknown>;
  /** false: an old CLI that rejects `serve status --json` and `serve --bg`. */
  serveJson?: boolean;
  /** true: `serve --bg` is refused for want of operator rights. */
  serveRefused?: boolean;
  /** Tailscale's OperatorUser preference, as `debug prefs` prints it. */
  operatorUser?: string;
  /** false: an old CLI with no `debug prefs`. */
  debugPrefs?: boolean;
}

export function fqdn(host: string): string {
  return `${host}.${FAKE_TAILNET_SUFFIX}`;
}

function peerStatus(d: FakeDevice, i: number): [string, Record<string, unknown>] {
  return [
    `nodekey:${String(i).padStart(64, '0')}`,
    {
      ID: `nPEER${i}CNTRL`,
      PublicKey: `nodekey:${i}`,
      HostName: d.host,
      DNSName: `${fqdn(d.host)}.`,
      OS: d.os ?? 'linux',
      TailscaleIPs: [`100.101.1.${10 + i}`],
      Online: d.online ?? true,
      LastSeen: '0001-01-01T00:00:00Z',
    },
  ];
}

/** A connected node on the fake tailnet with MagicDNS and HTTPS certificates on. */
export function runningStatus(self: string, peers: readonly FakeDevice[] = []): Record<string, unknown> {
  return {
    Version: '1.90.1-t0123456789-gabcdef',
    TUN: true,
    BackendState: 'Running',
    TailscaleIPs: ['100.101.1.2', 'fd7a:115c:a1e0::1'],
    Self: { ID: 'nSELF1CNTRL', HostName: self, DNSName: `${fqdn(self)}.`, OS: 'linux', TailscaleIPs: ['100.101.1.2'], Online: true },
    Health: [],
    MagicDNSSuffix: FAKE_TAILNET_SUFFIX,
    CurrentTailnet: { Name: FAKE_TAILNET_NAME, MagicDNSSuffix: FAKE_TAILNET_SUFFIX, MagicDNSEnabled: true },
    CertDomains: [fqdn(self)],
    Peer: Object.fromEntries(peers.map(peerStatus)),
    User: { '1234567': { ID: 1234567, LoginName: FAKE_TAILNET_NAME, DisplayName: 'Operator' } },
  };
}

/** Logged out: BackendState NeedsLogin, an AuthURL, no name, no tailnet. */
export function loggedOutStatus(): Record<string, unknown> {
  return {
    Version: '1.90.1-t0123456789-gabcdef',
    TUN: true,
    BackendState: 'NeedsLogin',
    AuthURL: 'https://login.tailscale.com/a/0123456789ab',
    TailscaleIPs: null,
    Self: { ID: '', HostName: 'localhost', DNSName: '', OS: 'linux', TailscaleIPs: null, Online: false },
    Health: ['not logged in'],
    MagicDNSSuffix: '',
    CurrentTailnet: null,
    CertDomains: null,
    Peer: null,
    User: null,
  };
}

/** MagicDNS off for the tailnet: the node still has a DNS name, but no certificates and MagicDNSEnabled false. */
export function magicDnsOffStatus(self: string, peers: readonly FakeDevice[] = []): Record<string, unknown> {
  const s = runningStatus(self, peers);
  return { ...s, CurrentTailnet: { Name: FAKE_TAILNET_NAME, MagicDNSSuffix: FAKE_TAILNET_SUFFIX, MagicDNSEnabled: false }, CertDomains: null };
}

/** A daemon from before CurrentTailnet and CertDomains: only the top-level MagicDNSSuffix. */
export function oldDaemonStatus(self: string, peers: readonly FakeDevice[] = []): Record<string, unknown> {
  const { CurrentTailnet: _t, CertDomains: _c, ...rest } = runningStatus(self, peers);
  return { ...rest, Version: '1.20.4-t1234abcd' };
}

export interface FakeTailscale {
  /** The directory to put first on PATH. */
  readonly dir: string;
  /** PATH with the fake first. */
  readonly path: string;
  /** Replaces the fake's state. */
  set(state: FakeTailscaleState): void;
  state(): FakeTailscaleState;
  /** Every argv the fake was run with, in order. */
  calls(): string[][];
}

/**
 * `parent`: where its directory is made, for a harness that removes its own tree; without one it
 * is a scratch dir under the system's temporary directory, removed when the test process exits.
 */
export function fakeTailscale(state: FakeTailscaleState, parent?: string): FakeTailscale {
  const dir = parent === undefined ? scratchDir('fake-tailscale-') : mkdtempSync(join(parent, 'fake-tailscale-'));
  const script = join(dir, 'fake-tailscale.mjs');
  copyFileSync(join(REPO_ROOT, 'test/fixtures/fake-tailscale.mjs'), script);
  // The shebang names this node, so the fake runs wherever the Hub's PATH leads.
  writeFileSync(join(dir, 'tailscale'), `#!${process.execPath}\nimport(${JSON.stringify(script)});\n`);
  chmodSync(join(dir, 'tailscale'), 0o755);
  const statePath = join(dir, 'state.json');
  // Replaced whole, as the fake replaces it: whichever polls it never reads a half-written file.
  const set = (s: FakeTailscaleState) => writeFileAtomic(statePath, JSON.stringify(s));
  set(state);
  return {
    dir,
    path: [dir, process.env.PATH ?? ''].join(delimiter),
    set,
    state: () => JSON.parse(readFileSync(statePath, 'utf8')) as FakeTailscaleState,
    calls: () =>
      existsSync(join(dir, 'calls.log'))
        ? readFileSync(join(dir, 'calls.log'), 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as string[])
        : [],
  };
}
