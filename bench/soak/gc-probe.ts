/**
 * Loaded into a Hub with NODE_OPTIONS='--expose-gc --import=<this file>' by bench/soak/stream-cost:
 * once a second it runs a full GC and appends one JSON line to GC_PROBE_FILE with what is left:
 * process.memoryUsage(), v8.getHeapStatistics() and, on Linux, RSS split into anonymous and
 * file-backed pages (/proc/self/status; null elsewhere). Bench code only: the Hub never loads it.
 * The timer is unref'd and a failed write is dropped.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import v8 from 'node:v8';

const file = process.env.GC_PROBE_FILE;

/** kB fields of /proc/self/status in bytes; null where there is no such file. */
function procStatus(key: 'RssAnon' | 'RssFile'): number | null {
  try {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}
const gc = (globalThis as { gc?: () => void }).gc;
if (file && gc) {
  setInterval(() => {
    gc();
    const m = process.memoryUsage();
    const h = v8.getHeapStatistics();
    const line = {
      t: Date.now(),
      rss: m.rss,
      heapTotal: m.heapTotal,
      heapUsed: m.heapUsed,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      mallocedMemory: h.malloced_memory,
      peakMallocedMemory: h.peak_malloced_memory,
      totalPhysicalSize: h.total_physical_size,
      rssAnon: procStatus('RssAnon'),
      rssFile: procStatus('RssFile'),
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // A full disk costs the sample, not the Hub.
    }
  }, 1_000).unref();
}
