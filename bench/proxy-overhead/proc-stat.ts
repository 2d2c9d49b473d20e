/**
 * CPU time from /proc (Linux only): a process's own (in ms, from its threads' schedstat, or in
 * clock ticks), the children it has reaped, and the whole machine's busy time, the last two in
 * clock ticks (USER_HZ, `getconf CLK_TCK`).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | null = null;

/** USER_HZ: the unit of every tick count below (normally 100). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === null) {
    const out = execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim();
    const n = Number(out);
    ticksPerSecond = Number.isInteger(n) && n > 0 ? n : 100;
  }
  return ticksPerSecond;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), 0-based from field 3. */
function statFields(pid: number | 'self'): string[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    throw new Error(`process ${pid} is gone: a benchmark process exited during the run`);
  }
  return text
    .slice(text.lastIndexOf(')') + 2)
    .trim()
    .split(' ');
}

/** utime + stime of one process, in ticks. */
export function processTicks(pid: number): number {
  const f = statFields(pid);
  // Field 14 is utime and 15 stime (1-based); f[0] is field 3.
  return Number(f[11]) + Number(f[12]);
}

/**
 * CPU time of one process in milliseconds, to the nanosecond where the kernel keeps schedstat:
 * the first field of /proc/<pid>/task/<tid>/schedstat is each thread's time on a CPU in ns, and
 * the process's is their sum. utime + stime come in 10 ms ticks, which is too coarse for a run
 * that costs the process a few hundred ms (a token stream at one connection: 260 ms a round, read
 * as 26 ticks, 2026-12-03). A thread that exits during a run takes its time with it, which no
 * process the benchmarks start does. Without schedstat, the ticks.
 */
export function processCpuMs(pid: number): number {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    throw new Error(`process ${pid} is gone: a benchmark process exited during the run`);
  }
  let ns = 0;
  for (const tid of tids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
    } catch {
      if (tid === String(pid)) return (processTicks(pid) * 1000) / clockTicksPerSecond();
      continue; // the thread ended between the listing and the read
    }
    ns += Number(text.slice(0, text.indexOf(' ')));
  }
  return ns / 1e6;
}

/** cutime + cstime of this process: the CPU of children it has already reaped (a finished wrk). */
export function reapedChildrenTicks(): number {
  const f = statFields('self');
  return Number(f[13]) + Number(f[14]);
}

/** Busy and total ticks summed over every CPU of the machine (/proc/stat's first line). */
export function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const [, ...rest] = line.trim().split(/\s+/);
  const v = rest.map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { busy: total - idle, total };
}

/** The pids a process has started (Linux 3.5+, /proc/<pid>/task/<pid>/children). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
