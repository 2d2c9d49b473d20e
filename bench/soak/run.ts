/**
 * bench/soak (issue 13 item 2, issue 15 item 5): 1,000 concurrent slow streams through one Hub for
 * --duration seconds (default 300) while its peers and engines fail and recover, sampling the
 * Hub's RSS, heap and event-loop delay every second. Three real Hubs on loopback (test/helpers/
 * pool-fixture.ts): `a`, the one measured, with a simulated Ollama and vLLM of its own, paired
 * with `b` and `c`, each with a simulated Ollama. Every engine holds the model, so a's placement
 * spreads the streams over four engines on three nodes. The simulators run at real time (time
 * scale 1) so a stream really lasts --answer-tokens / --decode-tps seconds.
 *
 * Faults, one every --fault-every seconds, each lasting --fault-for seconds, in turn:
 *   peer b killed with SIGKILL, then restarted on its port and data dir;
 *   a's Ollama answering every request with a 500;
 *   peer c stopped with SIGTERM (its leaving notice), then restarted;
 *   a's vLLM cutting every stream part-way.
 * The client keeps --streams requests in flight, starting a new one as each ends, and counts how
 * each ended. Phases: --idle seconds idle (its last IDLE_WINDOW_MS give the idle RSS), the load, a
 * drain, --settle seconds idle.
 *
 * Run it by hand, never from npm test. It opens about 2,000 sockets in this process and 1,000 in
 * the Hub: raise the limit first if `ulimit -n` is under 4096 (`ulimit -n 8192`). Only loopback.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { startPool, type Pool } from '../../test/helpers/pool-fixture.js';
import { parseEnvPairs } from '../env-pairs.js';
import { lineChart } from '../line-chart.js';
import { machineTicks, processCpuMs } from '../proxy-overhead/proc-stat.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const MODEL = 'soak:8b';

/**
 * The idle RSS is read over the idle phase's last 20 s. Pairing grows a Hub's young generation,
 * and V8 gives it back only after 15-30 s of quiet: a paired Hub read 84-90 MiB for its first
 * 20 s and 71-76 MiB from 30 s on (three runs, 2026-12-04 03:40 UTC), so the old 15 s phase
 * measured start-up, not idleness.
 */
const IDLE_WINDOW_MS = 20_000;

const { values: o } = parseArgs({
  options: {
    duration: { type: 'string', default: '300' },
    streams: { type: 'string', default: '1000' },
    'decode-tps': { type: 'string', default: '2' },
    'answer-tokens': { type: 'string', default: '40' },
    'fault-every': { type: 'string', default: '30' },
    'fault-for': { type: 'string', default: '10' },
    idle: { type: 'string', default: '60' },
    settle: { type: 'string', default: '60' },
    out: { type: 'string' },
    chart: { type: 'string', default: join(REPO_ROOT, 'bench/soak/soak-chart.svg') },
    /** NAME=VALUE for the soaked Hub's environment, repeatable (its env is not this process's); NODE_OPTIONS goes ahead of the probe's. */
    'hub-env': { type: 'string', multiple: true, default: [] },
  },
});
const num = (k: keyof typeof o) => Number(o[k]);

interface ProbeLine {
  readonly t: number;
  readonly loopP50Ms: number;
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
  readonly externalMb: number;
  readonly arrayBuffersMb: number;
  /** RSS in anonymous pages (/proc/self/status RssAnon); null off Linux. */
  readonly rssAnonMb: number | null;
  /** RSS in file-backed pages, mostly the node binary's (RssFile); null off Linux. */
  readonly rssFileMb: number | null;
}

type Ending = 'done' | 'cut' | 'transport-error' | `status-${number}`;

interface FaultWindow {
  readonly label: string;
  readonly fromMs: number;
  toMs: number;
}

/** A transport error's code and message, for counting: an ECONNRESET and a client-side port shortage read alike as "transport-error" otherwise. */
function transportErrorOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return `${typeof code === 'string' ? code : err.name}: ${err.message}`;
}

function readProbe(file: string): ProbeLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ProbeLine);
}

const medianOf = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Least-squares slope of y over x, per unit of x; null with fewer than two points. */
function slope(points: readonly (readonly [number, number])[]): number | null {
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? null : num / den;
}

async function main(): Promise<void> {
  const started = new Date();
  const probeFile = join(mkdtempSync(join(tmpdir(), 'cihub-soak-')), 'probe.jsonl');
  const probeModule = join(import.meta.dirname, 'loop-probe.js');
  const engine = {
    models: [MODEL],
    slots: num('streams') + 100,
    decodeTps: num('decode-tps'),
    answerTokens: num('answer-tokens'),
    prefillTps: 2_000,
    loadMs: 500,
    timeScale: 1,
  };
  const quiet = { HUB_LOG_LEVEL: 'warn' };
  const hubEnv = parseEnvPairs(o['hub-env']);
  console.log(`starting three Hubs and four simulated engines (${cpus().length} cpus, load ${loadavg()[0]!.toFixed(1)})...`);
  const pool: Pool<'a' | 'b' | 'c'> = await startPool({
    hubs: {
      a: {
        ollama: engine,
        vllm: engine,
        env: { ...quiet, ...hubEnv, NODE_OPTIONS: `${hubEnv.NODE_OPTIONS ?? ''} --import=${probeModule}`.trim(), SOAK_PROBE_FILE: probeFile },
      },
      b: { ollama: engine, env: quiet },
      c: { ollama: engine, env: quiet },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
    ],
    // The shortest poll the settings allow, so a restarted peer is taken back within seconds.
    settings: { poolHealthPollSeconds: 10 },
  });
  const hubA = pool.a;
  const agent = new Agent({ connections: null, keepAliveTimeout: 10_000, headersTimeout: 600_000, bodyTimeout: 600_000 });
  const endings = new Map<Ending, number>();
  const faults: FaultWindow[] = [];
  const inFlightSamples: [number, number][] = [];
  /** Endings other than done, by second since the load started: which fault they follow. */
  const failuresPerSecond: Record<number, Record<string, number>> = {};
  const refusalBodies: string[] = [];
  const failedRows = new Map<string, number>();
  /** What each transport error was, as undici or the socket named it (code: message). */
  const transportErrors = new Map<string, number>();
  let inFlight = 0;
  let started_ = 0;
  const t0 = Date.now();
  const m0 = machineTicks();
  try {
    console.log(`idle for ${o.idle} s...`);
    await sleep(num('idle') * 1000);
    const loadFrom = Date.now();
    const hubPid = hubA.process.child.pid!;
    const cpuFromMs = processCpuMs(hubPid);
    const loadUntil = loadFrom + num('duration') * 1000;
    const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'tell me a long story' }], stream: true });
    const end = (e: Ending) => {
      endings.set(e, (endings.get(e) ?? 0) + 1);
      if (e === 'done') return;
      const second = Math.floor((Date.now() - loadFrom) / 1000);
      const row = (failuresPerSecond[second] ??= {});
      row[e] = (row[e] ?? 0) + 1;
    };
    const oneStream = async (): Promise<void> => {
      inFlight++;
      started_++;
      try {
        const res = await request(`${hubA.pool}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          dispatcher: agent,
        });
        if (res.statusCode !== 200) {
          const text = await res.body.text();
          if (refusalBodies.length < 10) refusalBodies.push(`${res.statusCode} ${text.slice(0, 400)}`);
          end(`status-${res.statusCode}`);
          return;
        }
        let tail = '';
        for await (const chunk of res.body) tail = (tail + (chunk as Buffer).toString('latin1')).slice(-64);
        end(tail.includes('[DONE]') ? 'done' : 'cut');
      } catch (err) {
        end('transport-error');
        const what = transportErrorOf(err);
        transportErrors.set(what, (transportErrors.get(what) ?? 0) + 1);
      } finally {
        inFlight--;
      }
    };
    const lane = async (delayMs: number): Promise<void> => {
      await sleep(delayMs);
      while (Date.now() < loadUntil) await oneStream();
    };
    const sampler = setInterval(() => inFlightSamples.push([Date.now(), inFlight]), 1_000);
    // Why rows failed, from each Hub's own routing log: `a`'s rows name the candidates it had and
    // why each attempt failed; a peer's inbound rows say why it answered `a` with an error. Read
    // every few seconds with the log's cursor, since its ring (200 rows) holds only a few seconds here.
    const failureWatch = (['a', 'b', 'c'] as const).map((name) => watchFailedRows(name, pool[name], () => loadUntil + 10_000, failedRows));
    // The streams ramp up over 10 s, not all in one instant.
    const lanes = Array.from({ length: num('streams') }, (_, i) => lane((i * 10_000) / num('streams')));
    const chaos = (async () => {
      const steps: { label: string; start: () => Promise<void>; stop: () => Promise<void> }[] = [
        { label: 'peer b killed (SIGKILL)', start: () => pool.b.stop('SIGKILL'), stop: () => pool.b.restart() },
        {
          label: "a's Ollama answers 500",
          start: () => hubA.engines.ollama!.setFault({ mode: 'error', status: 500 }),
          stop: () => hubA.engines.ollama!.clearFaults(),
        },
        { label: 'peer c stopped (SIGTERM)', start: () => pool.c.stop('SIGTERM'), stop: () => pool.c.restart() },
        { label: "a's vLLM cuts streams", start: () => hubA.engines.vllm!.setFault({ mode: 'cut' }), stop: () => hubA.engines.vllm!.clearFaults() },
      ];
      for (let k = 0; ; k++) {
        const at = loadFrom + (k + 1) * num('fault-every') * 1000;
        if (at + num('fault-for') * 1000 > loadUntil) return;
        await sleep(Math.max(0, at - Date.now()));
        const step = steps[k % steps.length]!;
        const w: FaultWindow = { label: step.label, fromMs: Date.now(), toMs: 0 };
        faults.push(w);
        console.log(`  +${Math.round((Date.now() - loadFrom) / 1000)} s: ${step.label}; ${inFlight} streams in flight`);
        await step.start();
        await sleep(num('fault-for') * 1000);
        await step.stop();
        w.toMs = Date.now();
      }
    })();
    console.log(`${o.streams} streams for ${o.duration} s, a fault every ${o['fault-every']} s...`);
    await Promise.all([...lanes, chaos]);
    await Promise.all(failureWatch);
    const loadTo = Date.now();
    const hubCpuUnderLoadMs = processCpuMs(hubPid) - cpuFromMs;
    clearInterval(sampler);
    console.log(`load over after ${Math.round((loadTo - loadFrom) / 1000)} s; settling for ${o.settle} s...`);
    await sleep(num('settle') * 1000);
    const settleTo = Date.now();

    const probe = readProbe(probeFile);
    const during = (from: number, to: number) => probe.filter((p) => p.t >= from && p.t < to);
    const idle = during(Math.max(t0, loadFrom - IDLE_WINDOW_MS), loadFrom);
    const load = during(loadFrom, loadTo);
    const settled = during(settleTo - Math.min(20_000, num('settle') * 1000), settleTo + 2_000);
    const secondHalf = load.filter((p) => p.t >= loadFrom + (loadTo - loadFrom) / 2);
    const idleRss = medianOf(idle.map((p) => p.rssMb));
    const peakRss = load.length === 0 ? null : Math.max(...load.map((p) => p.rssMb));
    const endRss = medianOf(settled.map((p) => p.rssMb));
    const measured = (xs: readonly (number | null)[]) => medianOf(xs.filter((x): x is number => x !== null));
    const summary = {
      idleRssMb: idleRss,
      peakRssMb: peakRss,
      addedUnderLoadMb: idleRss === null || peakRss === null ? null : peakRss - idleRss,
      endRssMb: endRss,
      // A fraction above idle (0.47 is 47% more), not a ratio: read as one, it was once misreported as "1.70x".
      endAboveIdleFraction: idleRss === null || endRss === null ? null : endRss / idleRss - 1,
      // Which kind of page the difference is: file-backed growth is the node binary's code that the
      // load touched, anonymous is the heap's and the allocators'.
      idleRssAnonMb: measured(idle.map((p) => p.rssAnonMb)),
      endRssAnonMb: measured(settled.map((p) => p.rssAnonMb)),
      idleRssFileMb: measured(idle.map((p) => p.rssFileMb)),
      endRssFileMb: measured(settled.map((p) => p.rssFileMb)),
      rssSlopeSecondHalfMbPerMin: (() => {
        const s = slope(secondHalf.map((p) => [p.t / 60_000, p.rssMb] as const));
        return s;
      })(),
      heapSlopeSecondHalfMbPerMin: slope(secondHalf.map((p) => [p.t / 60_000, p.heapUsedMb] as const)),
      loopP99MedianUnderLoadMs: medianOf(load.map((p) => p.loopP99Ms)),
      loopP99WorstUnderLoadMs: load.length === 0 ? null : Math.max(...load.map((p) => p.loopP99Ms)),
      loopMaxUnderLoadMs: load.length === 0 ? null : Math.max(...load.map((p) => p.loopMaxMs)),
      loopP99IdleMs: medianOf(idle.map((p) => p.loopP99Ms)),
      streamsStarted: started_,
      // What a's own work cost (GC threads included), the figure a collector setting trades against memory.
      hubCpuSecondsUnderLoad: hubCpuUnderLoadMs / 1000,
      hubCpuMsPerStream: started_ === 0 ? null : hubCpuUnderLoadMs / started_,
      endings: Object.fromEntries(endings),
      inFlightMedian: medianOf(inFlightSamples.filter(([t]) => t > loadFrom + 15_000).map(([, n]) => n)),
    };
    const m1 = machineTicks();
    const result = {
      date: started.toISOString(),
      node: process.version,
      cpus: cpus().length,
      machineBusyCores: ((m1.busy - m0.busy) / (m1.total - m0.total)) * cpus().length,
      loadavgAtEnd: loadavg(),
      options: o,
      summary,
      faults: faults.map((f) => ({ label: f.label, fromS: (f.fromMs - loadFrom) / 1000, toS: (f.toMs - loadFrom) / 1000 })),
      samples: probe.map((p) => ({ ...p, s: (p.t - loadFrom) / 1000 })),
      failuresPerSecond,
      refusalBodies,
      failedRows: Object.fromEntries([...failedRows].sort((x, y) => y[1] - x[1])),
      transportErrors: Object.fromEntries([...transportErrors].sort((x, y) => y[1] - x[1])),
      inFlight: inFlightSamples.map(([t, n]) => ({ s: (t - loadFrom) / 1000, n })),
    };
    const out = o.out ?? join(REPO_ROOT, `bench/results/soak-${started.toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(resolve(out, '..'), { recursive: true });
    writeFileSync(out, JSON.stringify(result, null, 2));
    // Each Hub's own log (warnings and up) beside the results: what the client saw as a burst of
    // closed sockets or a run of failovers is often explained only there.
    const logsOut = out.replace(/\.json$/, '') + '-logs';
    for (const name of ['a', 'b', 'c'] as const) {
      const logs = join(pool[name].dataDir, 'logs');
      if (existsSync(logs)) cpSync(logs, join(logsOut, name), { recursive: true });
    }
    const secs = (t: number) => (t - loadFrom) / 1000;
    mkdirSync(resolve(o.chart, '..'), { recursive: true });
    writeFileSync(
      o.chart,
      lineChart(
        `Soak: ${o.streams} streams through one Hub for ${o.duration} s (${started.toISOString().slice(0, 10)}, shared machine)`,
        'seconds since the load started (negative: idle before it)',
        [
          {
            yLabel: 'Hub memory, MB',
            series: [
              { label: 'RSS', points: probe.map((p) => [secs(p.t), p.rssMb] as const) },
              { label: 'heap used', points: probe.map((p) => [secs(p.t), p.heapUsedMb] as const) },
            ],
            marks:
              idleRss === null
                ? []
                : [
                    { y: idleRss + 150, label: 'idle + 150 MB' },
                    { y: 80, label: '80 MB (idle target)' },
                  ],
          },
          {
            yLabel: 'event-loop delay, ms',
            series: [
              { label: 'p99 per second', points: probe.map((p) => [secs(p.t), p.loopP99Ms] as const) },
              { label: 'p50 per second', points: probe.map((p) => [secs(p.t), p.loopP50Ms] as const) },
            ],
          },
          { yLabel: 'streams in flight', series: [{ label: 'client side', points: inFlightSamples.map(([t, n]) => [secs(t), n] as const) }] },
        ],
        faults.map((f) => ({ from: secs(f.fromMs), to: secs(f.toMs), label: 'a fault (see JSON)' })),
      ),
    );
    console.log(JSON.stringify(summary, null, 2));
    console.log(`results: ${out}\nHub logs: ${logsOut}\nchart: ${o.chart}`);
  } finally {
    await agent.close().catch(() => undefined);
    await pool.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

/** At most this many distinct failure shapes are kept; the rest are counted under one key. */
const MAX_FAILURE_SHAPES = 60;

interface FailedRowView {
  readonly direction: string;
  readonly outcome: string;
  readonly candidates: number;
  readonly reason: string | null;
  readonly clientClosed: boolean;
  readonly attempts: readonly { readonly node: string; readonly backend: string | null; readonly reason: string }[];
}

/**
 * Polls one Hub's routing log until `until()`, counting each failed row under its shape: the Hub,
 * direction, candidates ranked, each attempt's node and reason, and the row's reason. A Hub that
 * is down (killed or restarting in a fault window) is skipped until it answers again.
 */
async function watchFailedRows(
  name: string,
  hub: { api<T>(method: string, path: string): Promise<{ status: number; json: T }> },
  until: () => number,
  into: Map<string, number>,
): Promise<void> {
  let since: string | null = null;
  const seen = new Set<string>();
  while (Date.now() < until()) {
    await sleep(3_000);
    try {
      const q: string = since === null ? 'limit=10000' : `limit=10000&since=${encodeURIComponent(since)}`;
      const page = await hub.api<{ entries: (FailedRowView & { id: string })[]; nextSince: string }>('GET', `/api/inference/pool/routing-log?${q}`);
      if (page.status !== 200) continue;
      since = page.json.nextSince;
      for (const row of page.json.entries) {
        if (row.outcome !== 'failed' || row.clientClosed || seen.has(row.id)) continue;
        seen.add(row.id);
        const attempts = row.attempts.map((t) => `${t.node}/${t.backend ?? '?'}: ${t.reason}`).join(' | ');
        let key = `${name} ${row.direction}, ${row.candidates} candidates; attempts [${attempts}]; ${row.reason ?? 'no reason'}`;
        if (!into.has(key) && into.size >= MAX_FAILURE_SHAPES) key = 'other shapes';
        into.set(key, (into.get(key) ?? 0) + 1);
      }
    } catch {
      // Down for the fault: its rows from before the restart are gone with it.
    }
  }
}
