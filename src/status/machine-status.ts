/**
 * What GET /status shows about each node's machine (spec, "GPU pressure", "Absent means
 * neutral, never idle"): this node's own band with where it came from and its hardware tier
 * with what detection found, and for each peer the band it advertised, clamped on read and
 * dropped once its snapshot is older than three health polls, beside the band ranking reads for
 * it now (unknown as mid-band, floored by this Hub's forwards there).
 */
import type { HardwareTierView } from '../machine/hardware-report.js';
import type { LocalPressureView } from '../machine/pressure-sampler.js';
import { snapshotTrusted } from '../peers/usable-peers.js';

export interface LocalMachineStatus {
  readonly gpuPressure: LocalPressureView;
  readonly hardware: HardwareTierView;
}

export interface PeerMachineStatus {
  /** The band the peer advertised, as read (0-3); null when it sent none, sent a bad one, or its snapshot is too old. */
  readonly gpuPressure: number | null;
  /** The band ranking reads for the peer now; null when it is not a candidate (not usable). Only weighed when poolPressureWeight > 0. */
  readonly rankedPressure: number | null;
}

/** What the peer's last snapshot said, for this view. */
export interface PeerMachineFacts {
  readonly gpuPressure: number | null;
  readonly snapshotAtMs: number | null;
}

export function peerMachineStatus(facts: PeerMachineFacts | null, rankedPressure: number | null, nowMs: number, pollSeconds: number): PeerMachineStatus {
  const fresh = facts !== null && snapshotTrusted(facts.snapshotAtMs, nowMs, pollSeconds);
  return { gpuPressure: fresh ? facts.gpuPressure : null, rankedPressure };
}
