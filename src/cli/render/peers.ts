/**
 * How a peer row reads on the command line: the short id the operator types back, the state
 * and auth words, and the `cihub pool peers` table. Data comes from PeerView only; the words
 * live here. The table deliberately leaves out key fingerprints (compare those in
 * `cihub pool status` or in the confirmation `cihub pool approve` asks).
 */
import type { PeerView } from '../../peers/peer-view.js';
import { capText, peerCapReading } from './context-caps.js';

/** Characters of a peer id that `cihub pool peers` prints (the server accepts any unique prefix of 4 or more). */
export const SHORT_ID_LENGTH = 8;

export function shortId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH);
}

export function directionWord(peer: Pick<PeerView, 'direction'>): 'in' | 'out' {
  return peer.direction === 'inbound' ? 'in' : 'out';
}

/**
 * STATE: the row's status, with "disabled" added when the per-peer switch is off here. A peer
 * that answers but refuses this Hub is named for the refusal, not left as a plain "unreachable",
 * which reads as a state that passes by itself (spec, Operator workflow).
 */
export function stateWord(peer: Pick<PeerView, 'status' | 'enabled' | 'probeFailure'>): string {
  const status = refusalWord(peer) ?? peer.status;
  return peer.enabled ? status : `${status}, disabled`;
}

function refusalWord(peer: Pick<PeerView, 'status' | 'probeFailure'>): string | null {
  if (peer.status === 'pending') return null;
  if (peer.probeFailure?.kind === 'identity_changed') return 'identity changed';
  if (peer.probeFailure?.kind === 'unauthorized') return 'credentials refused';
  return null;
}

export function authWord(mode: PeerView['authMode']): string {
  switch (mode) {
    case 'signed':
      return 'signed';
    case 'bearer':
      return 'bearer (legacy auth)';
    case 'none':
      return 'none';
  }
}

/** "12s ago", "3m ago", "5h ago" (up to two days), "2d ago"; "never" without a time. A time ahead of the clock reads "just now". */
export function ago(iso: string | null, nowMs: number): string {
  if (iso === null) return 'never';
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return 'unknown';
  const s = Math.floor((nowMs - then) / 1000);
  if (s < 1) return 'just now';
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

/** An ISO time as `2026-11-30 12:34:56Z`, the way `cihub pool log` prints times. */
export function clockTime(iso: string): string {
  return `${iso.slice(0, 19).replace('T', ' ')}Z`;
}

/** Distinct model names a peer reported at its last good poll; null when it has not been polled yet. */
export function peerModels(peer: Pick<PeerView, 'backends'>): string[] | null {
  if (peer.backends === null) return null;
  return [...new Set(peer.backends.flatMap((b) => b.models))].sort();
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  // Padding stops at the last cell, and a row whose trailing cells are empty ends without spaces.
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** The `cihub pool peers` table, with a hint under it for each request waiting for this Hub's approval. */
export function renderPeersTable(peers: readonly PeerView[], nowMs: number): string {
  if (peers.length === 0) return 'No peers and no pairing requests. Send one with `cihub pool pair <name>`.\n';
  const header = ['ID', 'NAME', 'DIRECTION', 'STATE', 'AUTH', 'LAST SEEN', 'CONTEXT'];
  // A pending row authenticates nothing yet, so its AUTH cell stays empty rather than promising a mode.
  // A half-paired row authenticates nothing the far side accepts, so it is not called legacy auth.
  const rows = peers.map((p) => [
    shortId(p.id),
    p.nodeFqdn,
    directionWord(p),
    stateWord(p),
    p.status === 'pending' ? '-' : p.pairingProblem !== null ? 'not confirmed' : authWord(p.authMode),
    ago(p.lastSeenAt, nowMs),
    p.status === 'pending' ? '-' : `${capText(peerCapReading(p))}${p.figuresCurrent === false ? ' as last seen' : ''}`,
  ]);
  const lines = columns([header, ...rows]);
  const waiting = peers.filter((p) => p.direction === 'inbound' && p.status === 'pending');
  if (waiting.length > 0) {
    lines.push('');
    for (const p of waiting) lines.push(`${p.nodeFqdn} asks to pair: \`cihub pool approve ${shortId(p.id)}\` or \`cihub pool reject ${shortId(p.id)}\`.`);
  }
  const stuck = peers.filter((p) => p.pairingProblem !== null);
  if (stuck.length > 0) {
    lines.push('');
    for (const p of stuck) lines.push(`${p.nodeFqdn} needs both operators (${p.pairingProblem!.kind.replaceAll('_', ' ')}): ${p.pairingProblem!.action}.`);
  }
  const refusing = peers.filter((p) => p.pairingProblem === null && p.probeFailure !== null && refusalWord(p) !== null);
  if (refusing.length > 0) {
    lines.push('');
    for (const p of refusing) lines.push(`${p.nodeFqdn} refuses this Hub (${refusalWord(p)}): ${p.probeFailure!.action}.`);
  }
  const sent = peers.filter((p) => p.direction === 'outbound' && p.status === 'pending' && p.pairingProblem === null);
  if (sent.length > 0) {
    if (waiting.length === 0) lines.push('');
    for (const p of sent) lines.push(`Waiting for ${p.nodeFqdn} to approve this Hub's request (cancel it with \`cihub pool unpair ${shortId(p.id)}\`).`);
  }
  return `${lines.join('\n')}\n`;
}
