/**
 * The setup guide's Check step: five checks, each Ready, Warning or Needs action, read from the
 * pool status and, for the three about Tailscale, from the Hub's Tailscale report (GET
 * /api/inference/pool/tailscale, the record cihub pool doctor reads).
 */
import { api, POOL, tailnetRead } from './api';
import type { PoolStatus, TailscaleReport } from './types';

export type CheckLevel = 'Ready' | 'Warning' | 'Needs action';
export interface Check {
  readonly name: string;
  readonly level: CheckLevel;
  readonly say: string;
  readonly fix?: { readonly label: string; readonly run: () => Promise<unknown> } | { readonly label: string; readonly href: string };
  /** A command to run on the Hub's host, shown as it must be typed. */
  readonly command?: string;
}

/** The report as the guide holds it: read, or why it could not be read. */
export type ReportRead = { readonly ok: true; readonly report: TailscaleReport } | { readonly ok: false; readonly why: string };

const DNS_SETTINGS = { label: 'Open Tailscale DNS settings', href: 'https://login.tailscale.com/admin/dns' } as const;
const CERTIFICATES = 'HTTPS certificates available';
const CHANGES = 'Tailscale accepts changes from this Hub';

export async function readTailscaleReport(): Promise<ReportRead> {
  try {
    return { ok: true, report: await tailnetRead<TailscaleReport>(`${POOL}/tailscale`) };
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  }
}

function notRead(name: string, read: ReportRead): Check | null {
  if (!read.ok) return { name, level: 'Warning', say: `Could not ask this Hub about its Tailscale (${read.why}). Run cihub pool doctor on the host.` };
  if (read.report.nameSource === 'env')
    return {
      name,
      level: 'Warning',
      say: 'Not checked: this Hub takes its name from HUB_NODE_FQDN instead of Tailscale (testing and demos). On a real tailnet the Hub reads this from Tailscale.',
    };
  return null;
}

export function certificatesCheck(read: ReportRead): Check {
  const unread = notRead(CERTIFICATES, read);
  if (unread !== null) return unread;
  const c = (read as Extract<ReportRead, { ok: true }>).report.certificates;
  switch (c.verdict) {
    case 'ok':
      return { name: CERTIFICATES, level: 'Ready', say: `${c.detail}.` };
    case 'missing':
      return {
        name: CERTIFICATES,
        level: 'Needs action',
        say: `${c.detail}. Hubs reach each other only over HTTPS at their tailnet names: turn on HTTPS Certificates and MagicDNS in the Tailscale admin console, then select Check again.`,
        fix: DNS_SETTINGS,
      };
    case 'unknown':
      return {
        name: CERTIFICATES,
        level: 'Warning',
        say: `Tailscale did not say (${c.detail}). Make sure HTTPS Certificates and MagicDNS are on for the tailnet.`,
        fix: DNS_SETTINGS,
      };
  }
}

/**
 * The address the Hub listens on when Tailscale Serve cannot reach it there (::1, 127.0.0.2, a LAN
 * address: the Hub publishes only http://127.0.0.1:<port>, and does not even try from such an
 * address); null when Serve can, or already publishes it through an entry made by hand. Compared
 * with false, as doctor's C2 does, so a Hub from before the field is judged on Serve's config.
 */
export function serveCannotReach(r: TailscaleReport): string | null {
  if (r.serve.verdict === 'publishes' || r.serve.reachableFromLoopback !== false) return null;
  return r.serve.hubHost ?? 'an address other than 127.0.0.1';
}

/** The listen addresses doctor's C2 offers: each keeps 127.0.0.1, where the Hub publishes itself. */
const LISTEN_FIX = 'restart the Hub with HUB_HOST=127.0.0.1 (the default), or HUB_HOST=0.0.0.0 to take other interfaces as well as loopback';

/** Tailscale refused the Hub's change (Serve); null when it did not. The Settings card and the check share it. */
export function refusedChanges(r: TailscaleReport): { readonly command: string; readonly then: string } | null {
  if (r.serve.verdict === 'publishes') return null;
  const host = serveCannotReach(r);
  // Accepting the Hub's changes is not enough while Serve cannot reach it: it publishes nothing until restarted.
  const then = (soon: string) =>
    host === null ? soon : `Then ${LISTEN_FIX}: on ${host} Tailscale Serve cannot reach it, so it publishes itself only after that restart.`;
  if (r.lastPublish?.kind === 'refused')
    return { command: r.lastPublish.command, then: then(`The Hub then publishes itself within a minute (or run ${r.lastPublish.publishCommand}).`) };
  if (r.operator.allowed === false)
    return {
      command: r.operator.command ?? `sudo tailscale set --operator=${r.operator.account}`,
      then: then('The Hub then publishes itself within a minute.'),
    };
  return null;
}

export function changesCheck(read: ReportRead): Check {
  const unread = notRead(CHANGES, read);
  if (unread !== null) return unread;
  const r = (read as Extract<ReportRead, { ok: true }>).report;
  const at = `https://${r.nodeFqdn ?? '<this Hub’s name>'}/`;
  if (r.serve.verdict === 'publishes') return { name: CHANGES, level: 'Ready', say: `Tailscale Serve publishes this Hub at ${at}.` };
  const refused = refusedChanges(r);
  // Before every other verdict, as in doctor's C2: whatever Serve holds, nothing it points at 127.0.0.1 reaches this Hub.
  const host = serveCannotReach(r);
  if (host !== null)
    return {
      name: CHANGES,
      level: 'Needs action',
      say: `This Hub listens on ${host}, where Tailscale Serve cannot reach it: the Hub publishes itself at 127.0.0.1, so ${at} would not reach it. To fix it, ${LISTEN_FIX}${
        refused === null
          ? ''
          : `, and run this once on the Hub’s host, since Tailscale also refuses changes from ${r.operator.account}, the account the Hub runs as`
      }; the Hub then publishes itself.`,
      ...(refused === null ? {} : { command: refused.command }),
    };
  if (refused !== null)
    return {
      name: CHANGES,
      level: 'Needs action',
      say: `Tailscale refused the Hub’s changes, so it is not published at ${at}. Run this once on the Hub’s host (it names the account the Hub runs as, ${r.operator.account}). ${refused.then}`,
      command: refused.command,
    };
  if (r.serve.verdict === 'other') {
    const command = r.lastPublish?.kind === 'conflict' ? r.lastPublish.command : undefined;
    return {
      name: CHANGES,
      level: 'Needs action',
      say: `Tailscale Serve sends ${at} to ${r.serve.otherTarget ?? 'something else'}, not to this Hub, and the Hub leaves another entry alone. If that entry can go, run:`,
      ...(command === undefined ? {} : { command }),
    };
  }
  if (r.lastPublish?.kind === 'failed')
    return {
      name: CHANGES,
      level: 'Needs action',
      say: `The Hub could not publish itself at ${at} (${r.lastPublish.problem}). Run:`,
      command: r.lastPublish.command,
    };
  if (r.serve.verdict === 'absent')
    return {
      name: CHANGES,
      level: 'Warning',
      say: `Not published at ${at} yet. The Hub publishes itself with Tailscale Serve within a minute of Tailscale connecting; select Check again.`,
    };
  return {
    name: CHANGES,
    level: 'Warning',
    say: `Could not read Tailscale Serve’s settings (${r.serve.problem ?? 'no answer'}). Run cihub pool doctor on the host.`,
  };
}

export function checksOf(s: PoolStatus, read: ReportRead): Check[] {
  const daemonProblem = read.ok && read.report.daemon.problem !== null ? ` Tailscale says: ${read.report.daemon.problem}.` : '';
  return [
    s.enabled
      ? { name: 'Hub Pool is on', level: 'Ready', say: 'Pooling is switched on here.' }
      : s.disabledBy === 'env'
        ? { name: 'Hub Pool is on', level: 'Needs action', say: "Disabled in this Hub's .env: remove HUB_POOL_USER_DISABLED=true and restart the Hub." }
        : {
            name: 'Hub Pool is on',
            level: 'Needs action',
            say: 'Pooling is switched off under Controls.',
            fix: { label: 'Turn on Hub Pool', run: () => api('PATCH', `${POOL}/settings`, { poolEnabled: true }) },
          },
    tailnetCheck(s, daemonProblem),
    certificatesCheck(read),
    changesCheck(read),
    outboundCheck(s),
  ];
}

const OUTBOUND = 'This Hub sends work to paired Hubs';

/**
 * With Hub Pool off, status reports both directions off by the master switch (kill-switch
 * precedence), so turning the direction's own setting on would change nothing: the check waits
 * on the first one, and says so when the direction's .env flag will hold it off after that too. Its fix is offered only when that setting is what holds it off.
 */
function outboundCheck(s: PoolStatus): Check {
  const out = s.directions.outbound;
  if (out.enabled) return { name: OUTBOUND, level: 'Ready', say: 'Sending work to peers is on.' };
  if (!s.enabled)
    return {
      name: OUTBOUND,
      level: 'Warning',
      say: `Depends on Hub Pool being on (the first check): with pooling off, this Hub sends no work to peers.${out.envLocked ? " HUB_POOL_OUTBOUND_DISABLED in this Hub's .env keeps it off even then." : ''}`,
    };
  if (out.disabledBy === 'env')
    return { name: OUTBOUND, level: 'Warning', say: "Disabled in this Hub's .env (HUB_POOL_OUTBOUND_DISABLED). Peers can still send work here." };
  return {
    name: OUTBOUND,
    level: 'Warning',
    say: 'Sending work to peers is switched off under Controls.',
    fix: { label: 'Turn on sending work', run: () => api('PATCH', `${POOL}/settings`, { poolOutboundEnabled: true }) },
  };
}

const TAILNET = 'Tailscale connected with a tailnet name';

/** Judged by whether Tailscale is connected, not by the name alone: a stopped Tailscale keeps the name it had. */
function tailnetCheck(s: PoolStatus, daemonProblem: string): Check {
  const n = s.localNode;
  if (n.tailnetSource === 'env' && n.nodeFqdn !== null)
    return { name: TAILNET, level: 'Warning', say: `The name ${n.nodeFqdn} comes from HUB_NODE_FQDN, not from Tailscale.` };
  if (!n.tailscaleConnected)
    return {
      name: TAILNET,
      level: 'Needs action',
      say: `Tailscale is not connected on this machine${n.nodeFqdn !== null ? ` (it last named this Hub ${n.nodeFqdn})` : ''}, so other Hubs cannot reach it.${daemonProblem} Run this on the host with MagicDNS on for the tailnet, then select Check again.`,
      command: 'tailscale up',
    };
  if (n.nodeFqdn === null)
    return {
      name: TAILNET,
      level: 'Needs action',
      say: `Tailscale is connected, but this Hub has no tailnet name.${daemonProblem} Turn on MagicDNS for the tailnet, then select Check again.`,
      fix: DNS_SETTINGS,
    };
  return { name: TAILNET, level: 'Ready', say: `Active as ${n.nodeFqdn}.` };
}
