/**
 * Reads a V8 .cpuprofile (from `node --cpu-prof`) and says where the time went: self time per
 * function and per package, over the samples taken inside a given window only (the load runs),
 * so start-up compilation does not blur the hot path.
 *
 * The window is in CLOCK_MONOTONIC microseconds, the clock V8 stamps profiles with on Linux and
 * the one process.hrtime reads, so this process can name the window of another's profile.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  readonly name: string;
  readonly selfMs: number;
  /** Share of the busy (non-idle) samples in the window. */
  readonly pct: number;
}

export interface ProfileSummary {
  readonly windowMs: number;
  readonly busyMs: number;
  readonly idleMs: number;
  readonly samplesInWindow: number;
  readonly windowMatched: boolean;
  readonly topFunctions: ProfileLine[];
  readonly byGroup: ProfileLine[];
}

/** Which package or layer a frame belongs to. */
export function groupOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === '') return frame.functionName || '(native)';
  const nm = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const src = /\/dist\/(src\/[^/]+)\//.exec(url);
  if (src) return `hub ${src[1]}`;
  return url.replace(/^file:\/\//, '');
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + '/dist/'.length);
  return url.replace(/^file:\/\//, '');
}

export function summarizeProfile(path: string, window: { startUs: number; endUs: number } | null, top = 30): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Sample i was taken at startTime + sum(timeDeltas[0..i]); it stands for the interval up to the next one.
  const stamps: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) stamps.push((t += d));
  const inWindow = (i: number) => window === null || (stamps[i]! >= window.startUs && stamps[i]! <= window.endUs);
  let matched = window !== null && stamps.some((_, i) => inWindow(i));
  const use = matched ? inWindow : () => true;
  if (window === null) matched = false;

  const selfByFn = new Map<string, number>();
  const selfByGroup = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  let count = 0;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < profile.samples.length; i++) {
    if (!use(i)) continue;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    count++;
    first = Math.min(first, stamps[i]!);
    last = Math.max(last, stamps[i]!);
    const f = node.callFrame;
    if (f.functionName === '(idle)') {
      idleUs += dt;
      continue;
    }
    busyUs += dt;
    const name = f.url === '' ? f.functionName || '(native)' : `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}`;
    selfByFn.set(name, (selfByFn.get(name) ?? 0) + dt);
    const group = groupOf(f);
    selfByGroup.set(group, (selfByGroup.get(group) ?? 0) + dt);
  }
  const lines = (m: Map<string, number>, n: number): ProfileLine[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, selfMs: Math.round(us / 100) / 10, pct: busyUs > 0 ? Math.round((us / busyUs) * 1000) / 10 : 0 }));
  return {
    windowMs: count > 0 ? Math.round((last - first) / 1000) : 0,
    busyMs: Math.round(busyUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    samplesInWindow: count,
    windowMatched: matched,
    topFunctions: lines(selfByFn, top),
    byGroup: lines(selfByGroup, 20),
  };
}
