/**
 * Pinning benchmark processes to CPUs (Linux `taskset`). On this 2-vCPU host, Hub builds measured
 * side by side without pinning could carry a bias of their own for a whole run: one that pinned
 * runs put at 0.85-0.90x of another read 1.23-1.29x of it unpinned (bench/README.md, 2026-12-03
 * 08:05). With every measured process on one CPU and the load and the upstream on the other,
 * identical builds read within 0.96-1.04x of each other.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** The CPUs a pinned run uses: the measured processes share `measured`; the load, the upstream and this script take `rest`. */
export interface CpuPlan {
  readonly measured: number;
  readonly rest: number;
}

/** A plan when taskset works here and there are two CPUs to split; null otherwise (the run goes unpinned). */
export function cpuPlan(): CpuPlan | null {
  if (process.platform !== 'linux' || availableParallelism() < 2 || !tasksetRuns()) return null;
  return { measured: availableParallelism() - 1, rest: 0 };
}

/** Whether `taskset` runs here (Linux with util-linux). */
export function tasksetRuns(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins every thread of `pid` to `cpu`; throws when taskset refuses (a plan said it works). */
export function pinToCpu(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}
