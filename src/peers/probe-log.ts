/**
 * What the Hub's log says about a peer's capabilities probes, decided from one poll's outcome
 * and what the poller knew before it. A peer that stays down fails every poll for as long as it
 * is down, so a warning is kept for what the operator has not been told: the first failure, a
 * failure of another kind than the last, and the poll that marks the peer unreachable. The
 * repeats go to debug (the peer row and the metric still count each one), and the first good
 * poll after failures is one info line with how many there were. Reasons come from the judged
 * probe (probe-failure.ts) and never carry a peer's body.
 */
import type { ProbeFailureKind } from './probe-failure.js';

export interface PeerProbeLine {
  readonly level: 'warn' | 'debug' | 'info';
  readonly fields: Readonly<Record<string, string | number>>;
  readonly msg: string;
}

/** The line for a good poll; null when the peer was answering before it (nothing new to say). */
export function peerAnsweredLine(peer: string, wasFailing: boolean, failuresBefore: number): PeerProbeLine | null {
  return wasFailing ? { level: 'info', fields: { peer, failures: failuresBefore }, msg: 'peer reachable' } : null;
}

export interface FailedPoll {
  readonly kind: ProbeFailureKind;
  readonly reason: string;
  /** Failed polls in a row, this one included. */
  readonly failures: number;
  /** This poll is the one that marks the peer unreachable (it was not before). */
  readonly markedUnreachable: boolean;
}

/** The line for a failed poll, given the kind of the failure before it (null: the last poll was good). */
export function peerFailedLine(peer: string, previousKind: ProbeFailureKind | null, poll: FailedPoll): PeerProbeLine {
  const { kind, reason, failures } = poll;
  return {
    level: previousKind !== kind || poll.markedUnreachable ? 'warn' : 'debug',
    fields: { peer, kind, failures, reason },
    msg: `capabilities probe of ${peer} failed: ${reason}`,
  };
}
