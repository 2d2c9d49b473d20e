/**
 * Where a GPU busy reading comes from (spec, "GPU pressure", "How it is measured"). Sources are
 * asked in order and the first that answers wins:
 *
 * - host-file: `busyPercent` from `<data-dir>/state/hardware/gpu_pressure.json`. The Hub never
 *   writes it; it is the seam for a GPU vendor the Hub cannot read itself (a timer on the host
 *   running nvidia-smi, for instance). The spec's `/data` is the container's data dir, so here it
 *   is the Hub's own data dir.
 * - amd-drm: the amdgpu driver's `gpu_busy_percent` under `card*` of a drm class directory:
 *   `/host/sys/class/drm` first (the spec's container mount of the host's /sys), then
 *   `/sys/class/drm` (a Hub running on the host itself). With several AMD cards the busiest one
 *   counts: a band must never read a machine as calmer than one of its GPUs is.
 *
 * A reading that is missing, malformed or out of range is no reading: the band is then absent,
 * never 0.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { elapsedMs } from '../util/clock.js';
import { listDir, readSmallFile } from './small-files.js';
import type { DetectedGpu, GpuVendor } from './hardware-tier.js';

/** The host file, relative to the data dir (spec: /data/state/hardware/gpu_pressure.json). */
export const PRESSURE_HOST_FILE = join('state', 'hardware', 'gpu_pressure.json');
/** drm class directories tried in order: the container's mount of the host /sys, then the host's own. */
export const DRM_CLASS_DIRS = ['/host/sys/class/drm', '/sys/class/drm'] as const;

export type PressureSourceName = 'host-file' | 'amd-drm';

export interface PressureReading {
  readonly source: PressureSourceName;
  /** 0-100. */
  readonly busyPercent: number;
  /** The file the figure was read from (for status and doctor). */
  readonly path: string;
}

export interface PressureSourcePaths {
  /** Absolute path of the host file. */
  readonly hostFile: string;
  /** drm class directories, in the order they are tried. */
  readonly drmDirs: readonly string[];
}

export function pressurePaths(dataDir: string): PressureSourcePaths {
  return { hostFile: join(dataDir, PRESSURE_HOST_FILE), drmDirs: DRM_CLASS_DIRS };
}

/** Only cardN entries are devices; card0-DP-1 and the like are its connectors. */
const CARD_NAME = /^card\d+$/;
const HOST_FILE_SCHEMA = z.object({ busyPercent: z.number().finite().min(0).max(100) }).passthrough();
const DRM_BUSY = /^\s*(\d{1,3})\s*$/;

/**
 * The GPU that keeps the AMD counter from speaking for this machine, or null when it may.
 * gpu_busy_percent measures its own card: on a machine whose engines run on an NVIDIA card beside
 * an AMD integrated GPU, it would read the idle iGPU and advertise band 0 for a machine whose
 * inference GPU is committed, the very misreading "absent means neutral" exists to prevent. So
 * the counter is read only when every GPU detection found is AMD; when detection could not
 * tell (null), as before.
 */
export function gpuBesideAmdCounter(gpus: readonly DetectedGpu[] | null): GpuVendor | null {
  return gpus?.find((g) => g.vendor !== 'amd')?.vendor ?? null;
}

/**
 * A host file last written longer ago than this is no reading: its writer has stopped, and the
 * figure it left (band 0 as much as band 3) would otherwise be advertised for good. Six sampling
 * intervals, for a writer the docs ask to run every few seconds. A file dated ahead of the clock
 * is no reading either (elapsedMs, util/clock.ts): the clock was set back since it was written,
 * so how old it is cannot be told, and a writer still running has written a current one within
 * seconds.
 */
export const HOST_FILE_MAX_AGE_MS = 60_000;

/** The first source that answers, or null when none does; the AMD counter only when `amdCounter`. */
export async function readPressure(
  paths: PressureSourcePaths,
  opts: { readonly amdCounter: boolean; readonly nowMs: number },
): Promise<PressureReading | null> {
  return (await readHostFile(paths.hostFile, opts.nowMs)) ?? (opts.amdCounter ? await readAmdDrm(paths.drmDirs) : null);
}

export async function readHostFile(path: string, nowMs: number): Promise<PressureReading | null> {
  const file = await readSmallFile(path);
  // An mtime is finer than the clock's whole ms, so one from the current millisecond lies a
  // fraction ahead of nowMs (three writes in four read back so on ext4, 2026-12-07): elapsedMs
  // reads that as now.
  if (file.kind !== 'ok' || elapsedMs(nowMs, file.modifiedAtMs) > HOST_FILE_MAX_AGE_MS) return null;
  let json: unknown;
  try {
    json = JSON.parse(file.text);
  } catch {
    return null;
  }
  const parsed = HOST_FILE_SCHEMA.safeParse(json);
  return parsed.success ? { source: 'host-file', busyPercent: parsed.data.busyPercent, path } : null;
}

/** The busiest card's gpu_busy_percent in the first drm directory that has one. */
export async function readAmdDrm(dirs: readonly string[]): Promise<PressureReading | null> {
  for (const dir of dirs) {
    const listing = await listDir(dir);
    if (listing.kind !== 'ok') continue;
    let best: PressureReading | null = null;
    for (const card of listing.names.filter((n) => CARD_NAME.test(n))) {
      const path = join(dir, card, 'device', 'gpu_busy_percent');
      const file = await readSmallFile(path);
      if (file.kind !== 'ok') continue;
      const m = DRM_BUSY.exec(file.text);
      const busy = m === null ? NaN : Number(m[1]);
      if (!(busy >= 0 && busy <= 100)) continue;
      if (best === null || busy > best.busyPercent) best = { source: 'amd-drm', busyPercent: busy, path };
    }
    if (best !== null) return best;
  }
  return null;
}
