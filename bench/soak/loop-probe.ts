/**
 * Loaded into the soaked Hub with NODE_OPTIONS=--import=<this file>: once a second it appends one
 * JSON line to the file named by SOAK_PROBE_FILE with the event-loop delay over that second
 * (perf_hooks.monitorEventLoopDelay, 10 ms resolution: what a request waiting on the loop saw),
 * process.memoryUsage(), and on Linux RSS split into anonymous and file-backed pages (the node
 * binary's code touched under load counts in RSS too, and is not the Hub's memory to give back).
 * Bench code only: the Hub itself never loads it. The timer is unref'd, so it never holds the Hub
 * open, and a failed write is dropped, never thrown.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.SOAK_PROBE_FILE;
if (file) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const NS_PER_MS = 1e6;
  const STATUS = '/proc/self/status';
  const hasStatus = existsSync(STATUS);
  /** A /proc/self/status field in MiB; null where there is no such file or field. */
  const statusMb = (status: string, field: string): number | null => {
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  };
  setInterval(() => {
    const m = process.memoryUsage();
    const status = hasStatus ? readFileSync(STATUS, 'utf8') : '';
    const line = {
      t: Date.now(),
      loopP50Ms: h.percentile(50) / NS_PER_MS,
      loopP99Ms: h.percentile(99) / NS_PER_MS,
      loopMaxMs: h.max / NS_PER_MS,
      rssMb: m.rss / 2 ** 20,
      heapUsedMb: m.heapUsed / 2 ** 20,
      heapTotalMb: m.heapTotal / 2 ** 20,
      externalMb: m.external / 2 ** 20,
      arrayBuffersMb: m.arrayBuffers / 2 ** 20,
      rssAnonMb: statusMb(status, 'RssAnon'),
      rssFileMb: statusMb(status, 'RssFile'),
    };
    h.reset();
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // A full disk costs the sample, not the Hub.
    }
  }, 1_000).unref();
}
