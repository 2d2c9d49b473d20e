/**
 * Pairing states that do not clear by waiting and need an operator on each Hub (spec, "Set up a
 * pool" → "Troubleshooting a new pool"): half paired, seen from either side, and two requests
 * that crossed. Decided from the row and what this Hub has seen; the action names the commands
 * with both Hubs' names in them, as a probe failure's does.
 */
import type { PeerRow } from '../store/peers.js';

export type PairingProblemKind =
  /** This Hub approved, but its confirmation never reached the requester. */
  | 'half_paired_here'
  /** The peer approved this Hub's request (it calls as paired), but the confirmation never arrived here. */
  | 'half_paired_there'
  /** Each Hub sent the other a request, and each set the other's aside. */
  | 'crossed_requests';

/**
 * What this Hub's pairing service holds about a row beyond the row itself. It lives in memory
 * and a restart forgets it, which is what the rows' own marks are for.
 */
export interface PairingNotes {
  /** When the peer was first seen acting on an approval this Hub never received; null when not seen. */
  readonly approvedThereAt: string | null;
  /**
   * True while this Hub's approval of the row is calling the requester back. The row is marked
   * half paired before that call goes out, so a crash during it leaves the state that names its
   * fix; while the call is still out the mark is not yet a finding.
   */
  readonly confirming: boolean;
}

export interface PairingProblem {
  readonly kind: PairingProblemKind;
  readonly since: string;
  readonly action: string;
}

/** The problem a row is in, or null. `notes` is what the pairing service holds about it (pairing-service.ts). */
export function pairingProblem(row: PeerRow, selfName: string | null, notes: PairingNotes): PairingProblem | null {
  const { approvedThereAt } = notes;
  const peer = row.nodeFqdn;
  const me = selfName ?? '<this Hub>';
  const removeBoth = `cihub pool unpair ${peer} here, and cihub pool unpair ${me} on ${peer}`;
  if (row.direction === 'inbound' && row.status !== 'pending' && row.confirmFailedAt !== null && !notes.confirming) {
    return {
      kind: 'half_paired_here',
      since: row.confirmFailedAt,
      action: `check that the two Hubs can reach each other's https address (cihub pool doctor on each says whether they can), then undo the pairing on both sides: ${removeBoth} if it still lists the request; then pair again from one Hub`,
    };
  }
  if (row.direction === 'outbound' && row.status === 'pending' && approvedThereAt !== null) {
    return {
      kind: 'half_paired_there',
      since: approvedThereAt,
      action: `check that the two Hubs can reach each other's https address (cihub pool doctor on each says whether they can), then undo the pairing on both sides: ${removeBoth}; then pair again from one Hub`,
    };
  }
  if (row.direction === 'outbound' && row.status === 'pending' && row.crossedAt !== null) {
    return {
      kind: 'crossed_requests',
      since: row.crossedAt,
      action: `cancel both requests (${removeBoth}), then pair again from one Hub only`,
    };
  }
  return null;
}
