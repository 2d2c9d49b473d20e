/**
 * This Hub's container counts, as published to peers (spec, "Container counts"): counts and
 * totals over the compose projects it manages, never a name. Pure: built from what the Docker
 * socket answered (docker-api.ts), and gated on freshness before it is published.
 */
import { elapsedMs } from '../util/clock.js';
import { MAX_CONTAINER_CPU_PERCENT, MAX_CONTAINER_MEMORY_BYTES, type ContainerRollup } from '../peers/capabilities.js';

/** The sampler collects once a minute (the spec's runtime monitor cadence). */
export const CONTAINER_SAMPLE_INTERVAL_MS = 60_000;
/** A collection older than two intervals is not published: the key is left out rather than stale. */
export const CONTAINER_SAMPLE_MAX_AGE_MS = 2 * CONTAINER_SAMPLE_INTERVAL_MS;

/** One container as the list answers it: its id and state ('running', 'exited', 'paused', ...). */
export interface ListedContainer {
  readonly id: string;
  readonly state: string;
}

/** What one running container's stats answer gives the rollup. */
export interface ContainerUsage {
  /** Percent of one core (summed over cores, as docker stats shows it). */
  readonly cpuPercent: number;
  readonly memoryBytes: number;
}

export interface ContainerSample {
  readonly rollup: ContainerRollup;
  readonly atMs: number;
}

/** The Docker stats fields the rollup reads (the Engine API's /containers/{id}/stats). */
export interface DockerStats {
  readonly cpu_stats?: {
    readonly cpu_usage?: { readonly total_usage?: number; readonly percpu_usage?: readonly number[] | null };
    readonly system_cpu_usage?: number;
    readonly online_cpus?: number;
  };
  readonly precpu_stats?: { readonly cpu_usage?: { readonly total_usage?: number }; readonly system_cpu_usage?: number };
  readonly memory_stats?: { readonly usage?: number; readonly stats?: Readonly<Record<string, number>> };
}

/**
 * CPU and memory of one container the way `docker stats` computes them: the container's share of
 * the host's CPU time since the previous reading, times the online cores; memory in use less the
 * page cache the kernel can drop (inactive_file on cgroup v2, total_inactive_file or cache on v1).
 * null when the answer lacks a reading either needs (no previous CPU reading, no memory usage: a
 * container that stopped since it was listed, a host without the memory controller): a figure
 * Docker did not give is unknown, and counted as 0 it went out as a measurement.
 */
export function usageOf(stats: DockerStats): ContainerUsage | null {
  const cpu = stats.cpu_stats;
  const pre = stats.precpu_stats;
  const mem = stats.memory_stats;
  const total = cpu?.cpu_usage?.total_usage;
  const system = cpu?.system_cpu_usage;
  const preTotal = pre?.cpu_usage?.total_usage;
  const preSystem = pre?.system_cpu_usage;
  if (total === undefined || system === undefined || preTotal === undefined || preSystem === undefined || mem?.usage === undefined) return null;
  const systemDelta = system - preSystem;
  if (systemDelta <= 0) return null;
  const cores = cpu?.online_cpus ?? cpu?.cpu_usage?.percpu_usage?.length ?? 1;
  const cpuPercent = total > preTotal ? ((total - preTotal) / systemDelta) * cores * 100 : 0;
  const cache = mem.stats?.inactive_file ?? mem.stats?.total_inactive_file ?? mem.stats?.cache ?? 0;
  return { cpuPercent, memoryBytes: Math.max(0, mem.usage - cache) };
}

/** The rollup of one collection: everything not running (paused and restarting included) is stopped. */
export function rollupOf(containers: readonly ListedContainer[], usage: readonly ContainerUsage[]): ContainerRollup {
  const running = containers.filter((c) => c.state === 'running').length;
  return {
    running,
    stopped: containers.length - running,
    total: containers.length,
    cpuPercent: Math.round(usage.reduce((sum, u) => sum + u.cpuPercent, 0) * 100) / 100,
    memoryBytes: usage.reduce((sum, u) => sum + u.memoryBytes, 0),
  };
}

/**
 * Why a rollup's totals are no measurement, or null when they can be one. Docker's figures are
 * finite one by one, yet a share of CPU time or a sum of memory can overflow to Infinity (which
 * JSON writes as null) or pass what any host has; either would go out as CPU or memory stated,
 * and every peer refuses such a rollup on read, so the bounds are the readers' own.
 */
export function implausibleTotals(rollup: ContainerRollup): string | null {
  const cpu = rollup.cpuPercent;
  const memory = rollup.memoryBytes;
  if (!Number.isFinite(cpu) || cpu > MAX_CONTAINER_CPU_PERCENT) return `Docker reported CPU use no host has (over ${MAX_CONTAINER_CPU_PERCENT} % of one core)`;
  if (!Number.isFinite(memory) || memory > MAX_CONTAINER_MEMORY_BYTES) return `Docker reported memory use no host has (over 2^53 bytes)`;
  return null;
}

/**
 * What is published: the last collection while it is fresh and sharing is on; otherwise nothing (the
 * key is absent). A collection stamped ahead of now (the wall clock was set back) is not fresh: a
 * sampler that had stopped collecting would otherwise publish it for as long as the step (clock.ts, elapsedMs).
 */
export function publishedRollup(sample: ContainerSample | null, nowMs: number, shared: boolean): ContainerRollup | null {
  if (!shared || sample === null || elapsedMs(nowMs, sample.atMs) > CONTAINER_SAMPLE_MAX_AGE_MS) return null;
  return sample.rollup;
}
