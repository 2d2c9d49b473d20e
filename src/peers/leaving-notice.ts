/**
 * The leaving notice (issue 11, item 7): a Hub that is shutting down tells each paired peer, in
 * a signed request, so the peer stops placing work on it at once instead of after three failed
 * health polls. The peer takes it back on its first good poll; nothing about the pairing
 * changes. Only a signed notice is sent or accepted: a bearer token proves less (it is the
 * legacy carrier, and a notice is cheap to forge with one that leaked), so a legacy pairing is
 * left to the polls, as before.
 */
import type { PeerRow } from '../store/peers.js';
import { outboundAuthMode } from './auth-mode.js';
import type { PeerClient } from './peer-client.js';

export const LEAVING_PATH = '/api/inference/pool/leaving';
/**
 * Longest a shutdown waits for its notices: 2 s. A peer on the tailnet answers in milliseconds,
 * and a peer that does not is left to notice by polling, as it would without the notice.
 */
export const LEAVING_NOTICE_TIMEOUT_MS = 2_000;

export interface LeavingOutcome {
  /** Peers that took the notice (answered 200). */
  readonly told: readonly string[];
  /** Peers that could not be told, with why; they notice by polling. */
  readonly notTold: readonly { readonly peer: string; readonly reason: string }[];
  /** Paired peers this Hub cannot sign to (legacy bearer pairings); not sent a notice. */
  readonly skipped: readonly string[];
}

/** Which paired peers get a notice: every pairing past its request, that this Hub signs to. */
export function leavingRecipients(rows: readonly PeerRow[], requireSigned: boolean): { send: PeerRow[]; skipped: string[] } {
  const send: PeerRow[] = [];
  const skipped: string[] = [];
  for (const row of rows) {
    if (row.status === 'pending') continue;
    if (outboundAuthMode(row, requireSigned) === 'signed') send.push(row);
    else skipped.push(row.nodeFqdn);
  }
  return { send, skipped };
}

/** Sends the notice to every recipient at once; never throws, and resolves within the budget. */
export async function tellPeersLeaving(rows: readonly PeerRow[], client: PeerClient, requireSigned: boolean): Promise<LeavingOutcome> {
  const { send, skipped } = leavingRecipients(rows, requireSigned);
  const answers = await Promise.all(
    send.map(async (row) => ({ row, answer: await client.call(row, 'POST', LEAVING_PATH, { reason: 'shutdown' }, { timeoutMs: LEAVING_NOTICE_TIMEOUT_MS }) })),
  );
  const told: string[] = [];
  const notTold: { peer: string; reason: string }[] = [];
  for (const { row, answer } of answers) {
    if (answer.ok && answer.status === 200) told.push(row.nodeFqdn);
    else notTold.push({ peer: row.nodeFqdn, reason: answer.ok ? `HTTP ${answer.status}` : answer.error });
  }
  return { told, notTold, skipped };
}
