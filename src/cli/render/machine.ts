/**
 * What `cihub pool status` and `cihub pool doctor` say about a node's machine: its hardware
 * tier with what detection found, and its GPU-pressure band with where the reading came from.
 * Absent figures are worded as absent ("not measured", "not detected"), never as 0 or idle.
 */
import type { HardwareTierView } from '../../machine/hardware-report.js';
import { PRESSURE_SAMPLE_INTERVAL_MS, type LocalPressureView } from '../../machine/pressure-sampler.js';
import type { PoolStatus } from '../../status/pool-status.js';
import { UNKNOWN_PRESSURE } from '../../placement/peer-load.js';
import { gpuBesideAmdCounter } from '../../machine/pressure-sources.js';

const GIB = 1024 ** 3;
const gib = (bytes: number): string => `${(bytes / GIB).toFixed(1)} GiB`;
const VENDOR: Readonly<Record<string, string>> = { nvidia: 'NVIDIA', amd: 'AMD', apple: 'Apple silicon' };

/** What detection found, e.g. "NVIDIA 23.6 GiB (nvidia-smi); 62.7 GiB memory". */
export function hardwareFound(h: HardwareTierView): string {
  const gpus =
    h.gpus === null
      ? 'GPUs unknown'
      : h.gpus.length === 0
        ? 'no GPU an engine uses'
        : h.gpus.map((g) => `${VENDOR[g.vendor] ?? g.vendor} ${g.memoryBytes === null ? 'of unknown size' : gib(g.memoryBytes)} (${g.via})`).join(', ');
  const memory = h.memoryBytes === null ? 'memory unknown' : `${gib(h.memoryBytes)} memory`;
  return `${gpus}; ${memory}`;
}

/** The "hardware tier" field of this node. */
export function hardwareTierText(h: HardwareTierView): string {
  if (!h.detected) return 'detecting (not advertised until detection finishes)';
  if (h.tier === null) return `not detected: ${h.unknownBecause ?? 'unknown'} (none is advertised)`;
  return `${h.tier} (${hardwareFound(h)})`;
}

function ago(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s ago` : `${Math.round(ms / 60_000)} min ago`;
}

/** The "GPU pressure" field of this node; `hardware` says whether the AMD counter was left unread beside another vendor's GPU. */
export function localPressureText(p: LocalPressureView, hardware: HardwareTierView | undefined): string {
  if (p.band !== null) {
    const parts = [
      `${p.smoothedPercent ?? '?'} % busy, smoothed`,
      `${p.source ?? '?'}: ${p.path ?? '?'}`,
      ...(p.sampledMsAgo === null ? [] : [ago(p.sampledMsAgo)]),
    ];
    return `band ${p.band} (${parts.join(', ')})`;
  }
  if (!p.sampling) return "not measured: no peer connected, so nothing is read (a band is only compared with a peer's)";
  if (p.noSource) {
    const beside = gpuBesideAmdCounter(hardware?.gpus ?? null);
    const sources = beside === null ? 'no host file, no AMD gpu_busy_percent' : `no host file; an AMD counter is not read beside the ${beside} GPU`;
    return `not measured: no source answers (${sources}); peers rank this node mid-band`;
  }
  if (p.sampledMsAgo !== null) return `not measured: the last reading (${ago(p.sampledMsAgo)}) is too old to advertise`;
  return `not measured yet: the first reading comes within ${PRESSURE_SAMPLE_INTERVAL_MS / 1000} s`;
}

type PeerRow = PoolStatus['peers'][number];

/**
 * A peer's tier and band as one note; null for a Hub that reported neither field (an older build).
 * What ranking reads for the band is added only when `pressureWeighed` (poolPressureWeight above
 * 0): at 0 the comparator never reads a band, so "ranks as 1" would state a reading that does
 * not happen, on every peer that cannot measure.
 */
export function peerMachineNote(p: PeerRow, pressureWeighed: boolean): string | null {
  if (p.status === 'pending' || p.gpuPressure === undefined) return null;
  const tier = p.hardwareTier === null ? 'hardware tier not reported' : `hardware tier ${p.hardwareTier}`;
  const band = p.gpuPressure === null ? 'GPU pressure not reported' : `GPU pressure band ${p.gpuPressure}`;
  const r = p.rankedPressure;
  const why =
    !pressureWeighed || r === null || r === undefined || r === p.gpuPressure
      ? null
      : r > (p.gpuPressure ?? UNKNOWN_PRESSURE)
        ? "floored by this Hub's forwards in flight there"
        : 'unmeasured reads mid-band, never idle';
  const ranked = why === null ? '' : ` (ranks as ${r}: ${why})`;
  return `${tier} · ${band}${ranked}`;
}
