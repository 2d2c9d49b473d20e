/** Machine views for status, doctor and render tests: what a Hub reports in each state. */
import type { HardwareTierView } from '../machine/hardware-report.js';
import type { LocalPressureView } from '../machine/pressure-sampler.js';
import type { LocalMachineStatus } from './machine-status.js';

const GIB = 1024 ** 3;

export const HARDWARE: Readonly<Record<'detecting' | 'midRange' | 'unsized' | 'cpuOnly', HardwareTierView>> = {
  detecting: { detected: false, tier: null, unknownBecause: null, platform: null, arch: null, memoryBytes: null, gpus: null, gpuMemoryBytes: null },
  midRange: {
    detected: true,
    tier: 'mid-range',
    unknownBecause: null,
    platform: 'linux',
    arch: 'x64',
    memoryBytes: 32 * GIB,
    gpus: [{ vendor: 'nvidia', memoryBytes: 12 * GIB, via: 'nvidia-smi' }],
    gpuMemoryBytes: 12 * GIB,
  },
  unsized: {
    detected: true,
    tier: null,
    unknownBecause: 'the nvidia GPU at /proc/driver/nvidia (nvidia-smi not on PATH) has no readable memory size',
    platform: 'linux',
    arch: 'x64',
    memoryBytes: 32 * GIB,
    gpus: [{ vendor: 'nvidia', memoryBytes: null, via: '/proc/driver/nvidia (nvidia-smi not on PATH)' }],
    gpuMemoryBytes: null,
  },
  cpuOnly: { detected: true, tier: 'cpu-only', unknownBecause: null, platform: 'linux', arch: 'arm64', memoryBytes: 64 * GIB, gpus: [], gpuMemoryBytes: null },
};

export const PRESSURE: Readonly<Record<'noPeer' | 'noSource' | 'firstTick' | 'aged' | 'band2', LocalPressureView>> = {
  noPeer: { band: null, smoothedPercent: null, source: null, path: null, sampledMsAgo: null, sampling: false, noSource: false },
  noSource: { band: null, smoothedPercent: null, source: null, path: null, sampledMsAgo: null, sampling: true, noSource: true },
  /** A peer has just connected and the first tick has not come round. */
  firstTick: { band: null, smoothedPercent: null, source: null, path: null, sampledMsAgo: null, sampling: true, noSource: false },
  /** The last reading is older than two sampling intervals (no tick has finished since). */
  aged: {
    band: null,
    smoothedPercent: null,
    source: 'host-file',
    path: '/srv/cihub/state/hardware/gpu_pressure.json',
    sampledMsAgo: 45_000,
    sampling: true,
    noSource: false,
  },
  band2: {
    band: 2,
    smoothedPercent: 72.4,
    source: 'amd-drm',
    path: '/sys/class/drm/card0/device/gpu_busy_percent',
    sampledMsAgo: 4000,
    sampling: true,
    noSource: false,
  },
};

export function machine(hardware: HardwareTierView, gpuPressure: LocalPressureView): LocalMachineStatus {
  return { hardware, gpuPressure };
}
