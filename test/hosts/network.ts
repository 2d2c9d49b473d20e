/**
 * The hosts' network: one network namespace per host, a switch (a bridge in a namespace of its
 * own) joining them, and one more link from the switch to this (the root) namespace, where the
 * test runner sits like an operator's laptop on the tailnet. Every host gets an address in
 * 100.64.0.0/10, Tailscale's range, so the Hub's own dial check (tailnet/private-address.ts)
 * treats it as it treats a real tailnet address.
 *
 * Everything made here carries one prefix, so clean-up can find it without any record: the
 * namespaces (`cihub-h-*`), the root-side link (`chh-op`), the per-namespace hosts files under
 * /etc/netns. Clean-up runs before a run (leftovers of a crashed one) and after it.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, tryRun } from './system-commands.js';

/** Every namespace the harness makes starts with this. */
export const NAMESPACE_PREFIX = 'cihub-h-';
/** Every link the harness leaves in the root namespace starts with this. */
export const LINK_PREFIX = 'chh-';
/** The switch's namespace. */
export const LAN_NAMESPACE = `${NAMESPACE_PREFIX}lan`;
const BRIDGE = 'br0';
/** The root namespace's end of its link to the switch. */
const OPERATOR_LINK = `${LINK_PREFIX}op`;
/** `ip netns exec` bind-mounts the files here over /etc (ip-netns(8)), which is how each host gets its own /etc/hosts. */
const NETNS_ETC = '/etc/netns';
/** A /24 inside 100.64.0.0/10 (the CGNAT range Tailscale hands out). */
const SUBNET_PREFIX = '100.88.0';
const SUBNET_BITS = 24;
/** The operator's (this test runner's) address on the switch. */
export const OPERATOR_ADDRESS = `${SUBNET_PREFIX}.254`;

export interface HostLink {
  /** A short label: the namespace is `cihub-h-<label>`, its switch port `chh-<label>`. */
  readonly label: string;
  readonly namespace: string;
  /** The switch-side end of this host's link (in the switch's namespace); down = the host is cut off. */
  readonly switchPort: string;
  readonly address: string;
}

/** Linux caps interface names at 15 bytes (IFNAMSIZ 16, with the terminating zero). */
const MAX_LINK_NAME = 15;

/** The plan for these labels: pure, so the names and addresses are fixed before anything is made. */
export function planHosts(labels: readonly string[]): HostLink[] {
  if (labels.length > 200) throw new Error('the hosts harness numbers hosts within one /24');
  return labels.map((label, i) => {
    if (!/^[a-z0-9]+$/.test(label)) throw new Error(`host label "${label}" must be lower-case letters and digits`);
    const switchPort = `${LINK_PREFIX}${label}`;
    if (switchPort.length > MAX_LINK_NAME) throw new Error(`host label "${label}" is too long for a link name`);
    return { label, namespace: `${NAMESPACE_PREFIX}${label}`, switchPort, address: `${SUBNET_PREFIX}.${i + 1}` };
  });
}

/** The /etc/hosts every host (and the harness's own lookups) resolves names with. */
export function hostsFile(entries: readonly { readonly name: string; readonly address: string }[]): string {
  return ['127.0.0.1 localhost', '::1 localhost', ...entries.map((e) => `${e.address} ${e.name}`), ''].join('\n');
}

function ip(...args: string[]): void {
  run('ip', args);
}

/** Makes the switch, every host's namespace and link, and the operator link. */
export function createNetwork(hosts: readonly HostLink[], names: readonly { readonly name: string; readonly address: string }[]): void {
  ip('netns', 'add', LAN_NAMESPACE);
  ip('-n', LAN_NAMESPACE, 'link', 'add', BRIDGE, 'type', 'bridge');
  ip('-n', LAN_NAMESPACE, 'link', 'set', BRIDGE, 'up');
  const hosts_ = hostsFile(names);
  for (const h of hosts) {
    ip('netns', 'add', h.namespace);
    // Made in the root namespace, then each end moved where it belongs: eth0 into the host, the port onto the switch.
    ip('link', 'add', h.switchPort, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', h.namespace);
    ip('link', 'set', h.switchPort, 'netns', LAN_NAMESPACE);
    ip('-n', LAN_NAMESPACE, 'link', 'set', h.switchPort, 'master', BRIDGE, 'up');
    ip('-n', h.namespace, 'addr', 'add', `${h.address}/${SUBNET_BITS}`, 'dev', 'eth0');
    ip('-n', h.namespace, 'link', 'set', 'eth0', 'up');
    ip('-n', h.namespace, 'link', 'set', 'lo', 'up');
    mkdirSync(join(NETNS_ETC, h.namespace), { recursive: true });
    writeFileSync(join(NETNS_ETC, h.namespace, 'hosts'), hosts_);
  }
  ip('link', 'add', OPERATOR_LINK, 'type', 'veth', 'peer', 'name', `${LINK_PREFIX}op-sw`, 'netns', LAN_NAMESPACE);
  ip('-n', LAN_NAMESPACE, 'link', 'set', `${LINK_PREFIX}op-sw`, 'master', BRIDGE, 'up');
  ip('addr', 'add', `${OPERATOR_ADDRESS}/${SUBNET_BITS}`, 'dev', OPERATOR_LINK);
  ip('link', 'set', OPERATOR_LINK, 'up');
}

/** Cuts a host off the switch (its Hub and engine keep running, as on a machine whose cable is pulled). */
export function setLink(host: HostLink, up: boolean): void {
  ip('-n', LAN_NAMESPACE, 'link', 'set', host.switchPort, up ? 'up' : 'down');
}

/** The harness's namespaces that exist now. */
export function harnessNamespaces(): string[] {
  return run('ip', ['netns', 'list'])
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name.startsWith(NAMESPACE_PREFIX));
}

/** The harness's links in the root namespace now. */
export function harnessRootLinks(): string[] {
  return run('ip', ['-o', 'link', 'show'])
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith(LINK_PREFIX));
}

/** The harness's per-namespace /etc/netns directories now. */
export function harnessEtcDirs(): string[] {
  if (!existsSync(NETNS_ETC)) return [];
  return readdirSync(NETNS_ETC)
    .filter((name) => name.startsWith(NAMESPACE_PREFIX))
    .map((name) => join(NETNS_ETC, name));
}

/** Process ids still running inside a namespace (`ip netns pids`). */
export function namespacePids(namespace: string): number[] {
  let out = '';
  try {
    out = run('ip', ['netns', 'pids', namespace]);
  } catch {
    return [];
  }
  return out
    .split('\n')
    .map((s) => Number.parseInt(s.trim(), 10))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/**
 * Whether a process still runs. A zombie does not: it has exited and only waits for whoever
 * adopted it (here, after its parent was killed, the machine's init) to reap it, which can take a
 * while on a loaded box; `kill(pid, 0)` alone still answers yes for it.
 */
export function processRuns(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // /proc/<pid>/stat: "pid (comm) state ..."; comm may hold spaces and parentheses, so read after the last ')'.
  const state = stat.lastIndexOf(')') + 2;
  return stat.slice(state, state + 1) !== 'Z';
}

/** How long clean-up waits for SIGKILLed processes to exit before it goes on regardless. */
const KILL_SETTLE_TIMEOUT_MS = 10_000;
const KILL_SETTLE_POLL_MS = 20;

/** Blocks until none of `pids` runs, or the timeout passes (clean-up is synchronous so it can run in exit hooks). */
function waitUntilExited(pids: readonly number[]): void {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + KILL_SETTLE_TIMEOUT_MS;
  while (pids.some(processRuns) && Date.now() < deadline) Atomics.wait(sleeper, 0, 0, KILL_SETTLE_POLL_MS);
}

/**
 * Removes everything of the harness's network, whoever made it: kills what still runs inside a
 * harness namespace (by the pids the kernel lists for it) and waits for those processes to exit
 * (SIGKILL is delivered asynchronously), deletes the namespaces (which takes their links with
 * them), then any root link and hosts file left. Never throws.
 */
export function removeNetwork(): void {
  const killed: number[] = [];
  for (const ns of harnessNamespaces()) {
    for (const pid of namespacePids(ns)) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.push(pid);
      } catch {
        // already gone
      }
    }
  }
  waitUntilExited(killed);
  for (const ns of harnessNamespaces()) tryRun('ip', ['netns', 'del', ns]);
  for (const link of harnessRootLinks()) tryRun('ip', ['link', 'del', link]);
  for (const dir of harnessEtcDirs()) rmSync(dir, { recursive: true, force: true });
  // /etc/netns is left in place only when something else keeps files there.
  if (existsSync(NETNS_ETC) && readdirSync(NETNS_ETC).length === 0) rmSync(NETNS_ETC, { recursive: true, force: true });
}

/** Whether this machine lets us make a namespace and a veth pair in it: null when it does, else what `ip` said. */
export function namespaceProbe(): string | null {
  const ns = `${NAMESPACE_PREFIX}probe`;
  try {
    run('ip', ['netns', 'add', ns]);
    run('ip', ['-n', ns, 'link', 'add', 'probe0', 'type', 'veth', 'peer', 'name', 'probe1']);
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    tryRun('ip', ['netns', 'del', ns]);
  }
}

/** What is left of the harness on this machine; empty after a clean teardown. */
export function leftovers(): string[] {
  return [...harnessNamespaces().map((n) => `namespace ${n}`), ...harnessRootLinks().map((l) => `link ${l}`), ...harnessEtcDirs()];
}
