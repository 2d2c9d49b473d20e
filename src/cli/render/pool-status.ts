/**
 * `cihub pool status` as text: the switches, this node (name, tailnet, identity, PIN state),
 * its engines, what the pool can serve and on which nodes, every peer, and the peers that
 * refuse this Hub with what to do about each. Rendered from the status document only; the
 * sentences live here, not in the Hub (the one exception is a probe failure's action text,
 * which the Hub words because it names commands with both Hubs' names in them).
 */
import { engineReportCell } from './engine-report.js';
import type { PoolStatus } from '../../status/pool-status.js';
import type { RoutingLogSummary } from '../../routing-log/entry.js';
import type { PeerView } from '../../peers/peer-view.js';
import { SWITCH_ENV_FLAGS } from '../../config/kill-switch.js';
import { describeFailedBreakdown } from './failed-breakdown.js';
import { capText, contextCapLines, peerCapReading, peerCeilingReading } from './context-caps.js';
import { ago, authWord, clockTime, columns, peerModels, shortId } from './peers.js';
import { peerSlotsNote, slotsText, speedLines } from './speed-lines.js';
import { hardwareTierText, localPressureText, peerMachineNote } from './machine.js';

const REASON_TEXT: Readonly<Record<PoolStatus['reason'], string>> = {
  active: 'routing across the pool',
  no_peers: "on, no peer connected: serving from this Hub's own engines",
  partially_disabled: 'partly switched off',
  // The variable is read only at start, so the fix is both steps (config/kill-switch.ts).
  disabled_by_env: "off: HUB_POOL_USER_DISABLED=true in this Hub's environment, which the setting cannot override (remove it and restart the Hub)",
  disabled_by_setting: 'off: poolEnabled is false (turn on with `cihub pool enable`)',
};

/**
 * One direction's switch. While Hub Pool is off, disabledBy names the master, so the direction's
 * own env flag is said apart: it is what keeps the direction off once Hub Pool is back on.
 */
function direction(name: string, d: PoolStatus['directions']['outbound'], flag: string, poolOn: boolean): string {
  if (d.enabled) return `${name} on`;
  const lock = !poolOn && d.envLocked ? `; ${flag}=true in the environment keeps it off once Hub Pool is back on` : '';
  return `${name} off (${d.disabledBy === 'env' ? 'by the environment' : 'by the setting'}${lock})`;
}

export interface StatusRenderOptions {
  /** Epoch ms that "last seen" ages are measured against (default: now). */
  readonly nowMs?: number;
}

const LABEL_WIDTH = 16;
const field = (label: string, value: string): string => `  ${label.padEnd(LABEL_WIDTH)}${value}`;

const REFUSAL_TEXT: Readonly<Record<'unauthorized' | 'identity_changed', string>> = {
  identity_changed: 'identity changed: it no longer holds the node identity pinned here, and waiting will not fix that',
  unauthorized: "credentials refused: it answers, but turns down this Hub's credentials",
};

export function renderPoolStatus(status: PoolStatus, summary: RoutingLogSummary | null, opts: StatusRenderOptions = {}): string {
  const nowMs = opts.nowMs ?? Date.now();
  const peers = status.peers;
  const lines: string[] = [];
  lines.push(`Hub Pool: ${headline(status)}`);
  lines.push(
    `  ${direction('sending work to peers', status.directions.outbound, SWITCH_ENV_FLAGS.outbound, status.enabled)} · ${direction('serving peers', status.directions.inbound, SWITCH_ENV_FLAGS.inbound, status.enabled)}`,
  );
  lines.push(...routingLines(status));
  const origins = status.localNode.peerOriginsMap;
  if (origins.active) {
    lines.push(`  !! peers are dialled through HUB_POOL_PEER_ORIGINS (development): ${origins.entries.map((e) => `${e.name} → ${e.origin}`).join(', ')}`);
  }
  for (const warning of status.startupWarnings) lines.push(`  !! at start-up: ${warning}`);
  lines.push('');
  lines.push('This node');
  lines.push(...thisNodeLines(status));
  lines.push('');
  lines.push('Engines');
  if (status.localNode.backends.length === 0) lines.push('  (none configured)');
  // Before its first probe answers, an engine's health and models are unknown: 'down' and
  // '0 models' would state what no probe found.
  const rows = status.localNode.backends.map((b) => [
    b.id,
    b.url,
    b.probedMsAgo === null ? 'not known yet' : b.healthy ? 'healthy' : b.running ? 'unhealthy' : 'down',
    b.probedMsAgo === null ? 'not probed yet' : `probed ${Math.round(b.probedMsAgo / 1000)}s ago`,
    `${b.inFlight} in flight`,
    b.error ?? (b.probedMsAgo === null ? 'models not known yet' : `${b.models.length} models`),
    engineReportCell(b),
  ]);
  lines.push(...columns(rows).map((l) => `  ${l}`));
  lines.push('');
  lines.push('What the pool can serve');
  lines.push(...servableLines(status));
  lines.push('');
  if (peers.length === 0) {
    lines.push('Peers: none paired');
  } else {
    lines.push(`Peers (${peers.length})`);
    lines.push(...peerLines(peers, nowMs, status.settings.poolPressureWeight > 0));
    const stuck = peers.filter((p) => p.pairingProblem !== null);
    if (stuck.length > 0) {
      lines.push('');
      lines.push('Pairings that need both operators');
      for (const p of stuck) {
        const problem = p.pairingProblem!;
        lines.push(`  ${p.nodeFqdn}: ${PROBLEM_TEXT[problem.kind]} (since ${clockTime(problem.since)})`);
        lines.push(`    what to do: ${problem.action}`);
      }
    }
    const refusing = peers.filter((p) => p.pairingProblem === null && (p.probeFailure?.kind === 'unauthorized' || p.probeFailure?.kind === 'identity_changed'));
    if (refusing.length > 0) {
      lines.push('');
      lines.push('Peers refusing this Hub');
      for (const p of refusing) {
        const failure = p.probeFailure!;
        const kind = failure.kind === 'identity_changed' ? 'identity_changed' : 'unauthorized';
        lines.push(`  ${p.nodeFqdn}: ${REFUSAL_TEXT[kind]}${failure.since === null ? '' : ` (since ${clockTime(failure.since)})`}`);
        lines.push(`    what to do: ${failure.action}`);
      }
    }
    const unsent = peers.filter((p) => p.pairingProblem === null && p.probeFailure?.kind === 'cannot_authenticate');
    if (unsent.length > 0) {
      lines.push('');
      lines.push('Peers this Hub cannot authenticate to');
      for (const p of unsent) {
        const failure = p.probeFailure!;
        lines.push(
          `  ${p.nodeFqdn}: this Hub holds no credential it can present, so it sends no probe${failure.since === null ? '' : ` (since ${clockTime(failure.since)})`}`,
        );
        lines.push(`    what to do: ${failure.action}`);
      }
    }
    lines.push(...signedOnlyLines(status));
  }
  lines.push(...contextCapLines(status));
  lines.push(...speedLines(status));
  lines.push(...pinLines(status));
  lines.push(...withheldLines(status));
  if (summary !== null) {
    lines.push('');
    // The counts cover the rows the log still holds, so once it has evicted some they are not totals since start.
    const held = summary.totalRecorded > summary.recorded ? ` (the newest ${summary.recorded} of ${summary.totalRecorded} since the Hub started)` : '';
    lines.push(
      `Recent routing${held}: ${summary.counts.served} served · ${describeFailedBreakdown(summary.counts)} · ${summary.counts.failedOver} failed over`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Routing pins, and which of them cannot apply right now (a pin never forces, so an idle one is easy to miss). */
function pinLines(status: PoolStatus): string[] {
  if (status.pins.length === 0) return [];
  const rows = status.pins.map((p) => [
    p.scope === 'model' ? (p.model ?? '') : '(every model)',
    `→ ${p.targetNode}`,
    p.targetAvailable ? 'in force' : 'idle: the target is not available, so the ranker alone decides',
  ]);
  return ['', 'Routing pins (prefer, never force)', ...columns(rows).map((l) => `  ${l}`)];
}

/** Engines withheld for bad output, and models this node cannot serve now. */
function withheldLines(status: PoolStatus): string[] {
  const { outputFaults, unservable } = status.withheld;
  if (outputFaults.length === 0 && unservable.length === 0) return [];
  const rows = [
    ...outputFaults.map((w) => [w.key.split('|').join(' / '), `tried last until ${clockTime(w.until)}`, w.reason]),
    ...unservable.map((w) => [w.key.split('|').join(' / '), `not offered until ${clockTime(w.until)}`, w.reason]),
  ];
  return ['', 'Withheld (node / engine / model)', ...columns(rows).map((l) => `  ${l}`)];
}

function thisNodeLines(status: PoolStatus): string[] {
  const node = status.localNode;
  const lines: string[] = [];
  lines.push(field('name', node.nodeFqdn ?? '(no tailnet name)'));
  lines.push(field('tailnet', tailnetText(node)));
  lines.push(field('admin API', adminApiText(status.tailscaleAdminApiConfigured, node)));
  const id = node.identity;
  if (id === null) {
    lines.push(field('identity', "not made yet (it is made on first use: a PIN, a pairing or a peer's probe)"));
  } else {
    if (id.fingerprint !== null) lines.push(field('fingerprint', id.fingerprint));
    if (id.nodeUuid !== null) lines.push(field('node UUID', id.nodeUuid));
    if (id.identityError !== null) {
      const what = id.nodeUuid === null ? 'none could be made, so this Hub cannot pair' : 'this Hub cannot sign';
      lines.push(field('identity', `UNUSABLE: ${id.identityError}; ${what}. Fix: ${id.identityFix}`));
    }
  }
  const pin = status.pairingPin;
  lines.push(
    field(
      'pairing PIN',
      pin.active && pin.expiresAt !== null ? `active until ${clockTime(pin.expiresAt)} (its digits are shown only when minted)` : 'none active',
    ),
  );
  lines.push(field('queue depth', String(node.queueDepth)));
  const ceiling = node.maxPromptTokens;
  lines.push(field('prompt ceiling', ceiling === null ? 'none' : `${ceiling} tokens (set by ${node.maxPromptTokensSetBy})`));
  lines.push(field('context cap', node.maxNumCtx === null ? 'none (takes any window)' : `num_ctx ${node.maxNumCtx}`));
  const slots = slotsText(node);
  if (slots !== null) lines.push(field('ollama slots', slots));
  if (node.hardware !== undefined) lines.push(field('hardware tier', hardwareTierText(node.hardware)));
  if (node.gpuPressure !== undefined) lines.push(field('GPU pressure', localPressureText(node.gpuPressure, node.hardware)));
  if (node.containers) lines.push(field('containers', ownContainersText(node.containers)));
  return lines;
}

/**
 * Whether discovery and the pairing membership check can ask the Tailscale Admin API, and which
 * tailnet they ask about (discovery/membership.ts, tailnetToAsk). Only the credential's presence
 * is known here, never whether the API answers: `cihub pool discover` reports that.
 */
function adminApiText(configured: boolean, node: PoolStatus['localNode']): string {
  if (!configured) return 'no credential (TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET not set): discovery does not ask the Tailscale Admin API';
  if (node.tailnet !== null) return `credential set: asks about tailnet ${node.tailnet}`;
  if (node.tailnetSuffix !== null) return "credential set: asks about the OAuth client's own tailnet (Tailscale names none here)";
  return 'credential set, but not asked: this Hub is on no tailnet';
}

function tailnetText(node: PoolStatus['localNode']): string {
  const suffix = node.tailnetSuffix ?? '(no suffix: pairing requests are not checked against a tailnet)';
  switch (node.tailnetSource) {
    case 'env':
      // With no name, only HUB_TAILNET_SUFFIX can have set it (tailnet/tailnet-self.ts).
      return `${suffix} (${node.nodeFqdn === null ? 'HUB_TAILNET_SUFFIX' : 'HUB_NODE_FQDN'} stand-in, not read from Tailscale)`;
    case 'tailscale':
      return `${suffix} (from Tailscale, ${node.tailscaleConnected ? 'connected' : 'not connected'})`;
    case 'none':
      return 'none: not on a tailnet (connect Tailscale with MagicDNS, or set HUB_NODE_FQDN)';
  }
}

/**
 * What the pool can serve, from the status document's own list: the Hub builds it from the peers
 * placement may use, so a peer it would not send work to (outbound off, the pool off) is not in
 * it, as it is in no answer the proxy gives. This node's engines are named beside "local".
 */
function servableLines(status: PoolStatus): string[] {
  const healthy = status.localNode.backends.filter((b) => b.healthy);
  const local = (model: string) =>
    `local (${healthy
      .filter((b) => b.models.includes(model))
      .map((b) => b.id)
      .join(', ')})`;
  const peers = new Set(status.models.flatMap((m) => m.nodes.filter((n) => n !== 'local')));
  if (status.models.length === 0) return ['  (nothing: no healthy engine here, nor on a peer work can go to, lists a model)'];
  // On a Hub with no peer serving, every model is on one node; the mark would say nothing.
  const pooled = peers.size > 0;
  const rows = status.models.map((m) => {
    const on = m.nodes.map((n) => (n === 'local' ? local(m.model) : n)).join(', ');
    return pooled && m.singleNode ? [m.model, on, '⚠ on one node only'] : [m.model, on];
  });
  const lines = columns(rows).map((l) => `  ${l}`);
  if (pooled) {
    const single = status.models.filter((m) => m.singleNode).length;
    // The nodes that serve a model, which leaves this one out when no engine here lists any.
    const nodes = new Set(status.models.flatMap((m) => m.nodes)).size;
    lines.push(
      `  ${status.models.length} model${status.models.length === 1 ? '' : 's'} across ${nodes} node${nodes === 1 ? '' : 's'}; ${single} on one node only`,
    );
  }
  return lines;
}

const PROBLEM_TEXT: Readonly<Record<NonNullable<PeerView['pairingProblem']>['kind'], string>> = {
  half_paired_here: 'half paired: this Hub approved its request, but the approval never reached it',
  half_paired_there: "half paired: it approved this Hub's request, but the approval never arrived here",
  crossed_requests: "the requests crossed: it sent this Hub a request too, and each Hub sets the other's aside",
};

/** This Hub's own counts: what it collects, from where, and whether peers see them. */
function ownContainersText(c: NonNullable<PoolStatus['localNode']['containers']>): string {
  if (c.socket === null) return 'not collected: no Docker socket is mounted (peers see "not reported")';
  const counts = c.rollup === null ? `not measured${c.problem === null ? ' yet' : `: ${c.problem}`}` : containersText(c.rollup).replace(/^containers: /, '');
  const projects = c.projects === null ? '' : ` in ${c.projects.join(', ')}`;
  return `${counts}${c.rollup === null ? '' : projects}; ${c.shared ? 'shared with peers' : 'not shared (poolShareContainerStats is off)'}`;
}

/** A peer's container rollup; absent reads "not reported", never as an idle machine. */
export function containersText(c: PeerView['containers']): string {
  if (c === null) return 'containers: not reported';
  const gib = c.memoryBytes / 2 ** 30;
  return `containers: ${c.running} running, ${c.stopped} stopped (${c.total} in all); ${c.cpuPercent.toFixed(1)}% CPU, ${gib.toFixed(1)} GiB memory`;
}

/** Peers the ranker can place work on now: status gives them a queue depth. */
function routable(status: PoolStatus): PoolStatus['peers'] {
  return status.peers.filter((p) => p.queueDepth !== null);
}

/** The first line: the switches, or else whether routing can actually use a peer right now. */
function headline(status: PoolStatus): string {
  if (status.reason !== 'active' && status.reason !== 'no_peers') return REASON_TEXT[status.reason];
  if (routable(status).length > 0) return REASON_TEXT.active;
  const paired = status.peers.filter((p) => p.status !== 'pending');
  if (paired.length === 0)
    return status.peers.length === 0
      ? "on, no peer paired: serving from this Hub's own engines"
      : "on, no pairing approved yet: serving from this Hub's own engines";
  return "on, but no peer can take work now: serving from this Hub's own engines";
}

/** Which peers routing can use, and for a paired peer it cannot use because of a switch, which switch. */
function routingLines(status: PoolStatus): string[] {
  if (!status.enabled || !status.directions.outbound.enabled) return [];
  const lines: string[] = [];
  const n = routable(status).length;
  if (n > 0) lines.push(`  routing is active: requests can be placed on ${n} peer${n === 1 ? '' : 's'} as well as on this Hub`);
  for (const p of status.peers) {
    if (p.status === 'pending' || p.queueDepth !== null) continue;
    if (!p.enabled) lines.push(`  ${p.nodeFqdn} is disabled here: no work goes to it or comes from it (cihub pool peer-enable ${p.nodeFqdn} undoes this)`);
    else if (p.acceptingWork === false)
      lines.push(`  ${p.nodeFqdn} is not taking work from this Hub: it has disabled this Hub or switched off serving peers (its operator can undo that there)`);
  }
  return lines;
}

/** Whether poolRequireSignedPeers is safe to turn on: only once every pairing signs. */
function signedOnlyLines(status: PoolStatus): string[] {
  const pairings = status.peers.filter((p) => p.status !== 'pending' && p.pairingProblem === null);
  if (pairings.length === 0) return [];
  const on = status.settings.poolRequireSignedPeers;
  const legacy = pairings.filter((p) => p.authMode === 'bearer');
  if (legacy.length > 0) {
    return [
      '',
      `Legacy auth: ${legacy.map((p) => p.nodeFqdn).join(', ')} still ${legacy.length === 1 ? 'uses a bearer token' : 'use bearer tokens'}; ${on ? 'poolRequireSignedPeers is on, which cuts such a pairing off in both directions' : 'leave poolRequireSignedPeers off until every peer shows signed'}`,
    ];
  }
  if (!pairings.every((p) => p.authMode === 'signed')) return [];
  return [
    '',
    on
      ? 'Signed requests only: on, and every peer signs.'
      : 'Signed requests only: every peer signs now, so turning on poolRequireSignedPeers is safe (cihub pool set poolRequireSignedPeers true).',
  ];
}

function peerState(p: PeerView): string {
  const base = p.status !== 'pending' ? p.status : p.direction === 'inbound' ? 'pending: waiting for your approval' : 'pending: waiting for its approval';
  return p.enabled ? base : `${base}, disabled`;
}

/**
 * The queue the ranker reads for a peer it can place on, as the dashboard's peer rows show it;
 * nothing for one it cannot (null), or one without a good poll for a while, whose note says
 * what it ranks with instead.
 */
function queueText(p: PoolStatus['peers'][number]): string {
  // snapshotStale too: a Hub older than loadReported says only that.
  return p.queueDepth === null || p.loadReported === false || p.snapshotStale === true ? '' : `, queue ${p.queueDepth}`;
}

/**
 * This Hub's own requests still waiting on the peer (status's forwardedInFlight), shown only
 * while there are some: part of the peer's queue is then this Hub's doing, and a drain or an
 * unpair would cut those requests off.
 */
function forwardedText(p: PoolStatus['peers'][number]): string {
  return p.forwardedInFlight > 0 ? `, ${p.forwardedInFlight} forwarded from here` : '';
}

function peerLines(peers: PoolStatus['peers'], nowMs: number, pressureWeighed: boolean): string[] {
  const rows: string[][] = [];
  const notes = new Map<number, string[]>();
  peers.forEach((p, i) => {
    const note: string[] = [];
    const earlier = p.status !== 'pending' && p.figuresCurrent === false;
    let detail: string;
    if (p.status === 'pending' && p.direction === 'inbound') {
      detail = `approve with \`cihub pool approve ${shortId(p.id)}\``;
      note.push(
        p.fingerprint === null
          ? 'no key: this request carried no PIN, so its name is only a claim'
          : `key fingerprint ${p.fingerprint} (compare it with that Hub's \`cihub pool status\`)`,
      );
    } else if (p.status === 'pending') {
      detail = p.expiresAt === null ? 'sent' : `sent; expires ${clockTime(p.expiresAt)}`;
      if (p.pairingProblem !== null) note.push(`${PROBLEM_TEXT[p.pairingProblem.kind]}: see below`);
    } else {
      const models = peerModels(p);
      detail =
        models === null
          ? p.leftAt !== null
            ? 'models unknown since it said it was shutting down'
            : 'models not reported yet'
          : p.acceptingWork === false
            ? 'not taking work from this Hub'
            : `${models.length} model${models.length === 1 ? '' : 's'}${earlier ? ' as last seen' : queueText(p)}`;
      detail += forwardedText(p);
      if (p.pairingProblem !== null) {
        note.push(`${PROBLEM_TEXT[p.pairingProblem.kind]}: see below`);
      } else if (p.probeFailure?.kind === 'unauthorized' || p.probeFailure?.kind === 'identity_changed') {
        // Ahead of a leaving notice: waiting does not fix a refusal, whatever the peer said before it.
        note.push(`refusing this Hub: see below`);
      } else if (p.leftAt !== null) {
        note.push(`said it was shutting down at ${clockTime(p.leftAt)}: no work goes to it, and it rejoins by itself on its first good poll`);
      } else if (p.probeFailure !== null && p.probeFailure.kind === 'unreachable') {
        note.push(
          `last probe failed: no usable answer${p.probeFailure.since === null ? '' : ` since ${clockTime(p.probeFailure.since)}`} (${p.consecutiveFailures} in a row); it rejoins by itself on the next probe that succeeds`,
        );
      } else if (p.probeFailure?.kind === 'cannot_authenticate') {
        note.push('no probe sent: this Hub cannot authenticate to it; see below');
      }
    }
    if (p.snapshotStale) note.push(`no good poll for over three polls: ranks as mid-load (queue ${p.queueDepth ?? '?'}) until the next one`);
    else if (p.loadReported === false) note.push(`its last poll reported no load: ranks as mid-load (queue ${p.queueDepth ?? '?'})`);
    if (earlier) note.push(`its models, context, ceiling and tier are from its last good poll, ${ago(p.lastSeenAt, nowMs)}: not current`);
    if (p.status !== 'pending') note.push(containersText(p.containers));
    const slotsNote = peerSlotsNote(p);
    if (slotsNote !== null) note.push(slotsNote);
    const machineNote = peerMachineNote(p, pressureWeighed);
    if (machineNote !== null) note.push(machineNote);
    const auth = p.status === 'pending' ? '-' : p.pairingProblem !== null ? 'not confirmed' : authWord(p.authMode);
    const limits = p.status === 'pending' ? ['', ''] : [`context ${capText(peerCapReading(p))}`, `ceiling ${capText(peerCeilingReading(p))}`];
    rows.push([
      p.nodeFqdn,
      peerState(p),
      auth,
      p.status === 'pending' ? `asked ${ago(p.createdAt, nowMs)}` : `last seen ${ago(p.lastSeenAt, nowMs)}`,
      ...limits,
      detail,
    ]);
    if (note.length > 0) notes.set(i, note);
  });
  const out: string[] = [];
  columns(rows).forEach((line, i) => {
    out.push(`  ${line}`);
    for (const n of notes.get(i) ?? []) out.push(`    ↳ ${n}`);
  });
  return out;
}

/** Left-aligned columns separated by two spaces. */
/** Left-aligned columns two spaces apart: the one table layout every CLI view uses. */
export { columns as table };
