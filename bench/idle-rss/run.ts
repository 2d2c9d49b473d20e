/**
 * Idle RSS of a lone Hub (issue 13 item 2: under 80 MB), measured the way bench/README.md's
 * 2026-12-02 figures were: `bin/cihub serve` with no engines and no peers in a fresh data dir,
 * VmRSS (and its anonymous and file-backed parts) read from /proc/<pid>/status once a second,
 * the median of seconds 11-20 after hub.json appears. Several builds (checkouts with bin/ and
 * dist/) take turns, run after run, so a change in the machine's load falls on all of them alike.
 *
 *   node dist/bench/idle-rss/run.js [--runs 5] [--settle 10] [--samples 10] <checkout> [<checkout> ...]
 *
 * Linux only (it reads /proc); a bench, never part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const ENGINES_OFF = { OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: '' };
/** A bound on a Hub that never writes hub.json, not a target. */
const START_TIMEOUT_MS = 60_000;

interface Sample {
  rssMiB: number;
  anonMiB: number;
  fileMiB: number;
}

interface Run extends Sample {
  build: string;
  load1: number;
}

function readStatus(pid: number): Sample | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssMiB: kb('VmRSS') / 1024, anonMiB: kb('RssAnon') / 1024, fileMiB: kb('RssFile') / 1024 };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** PATH without any directory holding a `tailscale`, so the Hub never publishes itself on the host. */
function pathWithoutTailscale(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '' && !existsSync(join(dir, 'tailscale')))
    .join(delimiter);
}

async function measureOnce(checkout: string, settleS: number, samples: number): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cihub-idle-rss-'));
  const child = spawn(process.execPath, [join(checkout, 'bin/cihub'), 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: { PATH: pathWithoutTailscale(), HOME: dataDir, ...ENGINES_OFF },
    stdio: 'ignore',
  });
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const info = join(dataDir, 'hub.json');
    while (!existsSync(info)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${checkout}: the Hub did not start`);
      await sleep(25);
    }
    await sleep(settleS * 1000);
    const seen: Sample[] = [];
    for (let i = 0; i < samples; i++) {
      await sleep(1000);
      const s = readStatus(child.pid!);
      if (s === null) throw new Error(`${checkout}: the Hub exited while idle`);
      seen.push(s);
    }
    return {
      rssMiB: median(seen.map((s) => s.rssMiB)),
      anonMiB: median(seen.map((s) => s.anonMiB)),
      fileMiB: median(seen.map((s) => s.fileMiB)),
    };
  } finally {
    const exited = new Promise((res) => child.once('exit', res));
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { runs: { type: 'string', default: '5' }, settle: { type: 'string', default: '10' }, samples: { type: 'string', default: '10' } },
  });
  if (positionals.length === 0) throw new Error('give one or more checkouts (directories with bin/cihub and dist/)');
  const builds = positionals.map((p) => resolve(p));
  const runs: Run[] = [];
  for (let r = 0; r < Number(values.runs); r++) {
    for (const build of builds) {
      const load1 = loadavg()[0]!;
      const s = await measureOnce(build, Number(values.settle), Number(values.samples));
      runs.push({ build, load1, ...s });
      process.stdout.write(
        `run ${r + 1} ${build}: ${s.rssMiB.toFixed(1)} MiB (anon ${s.anonMiB.toFixed(1)}, file ${s.fileMiB.toFixed(1)}), load ${load1.toFixed(2)}\n`,
      );
    }
  }
  process.stdout.write('\n| build | idle RSS, MiB (each run) | median | anonymous (median) | file-backed (median) |\n| --- | --- | ---: | ---: | ---: |\n');
  for (const build of builds) {
    const mine = runs.filter((x) => x.build === build);
    const each = mine.map((x) => x.rssMiB.toFixed(1)).join(', ');
    const med = (f: (x: Run) => number): string => median(mine.map(f)).toFixed(1);
    process.stdout.write(`| ${build} | ${each} | ${med((x) => x.rssMiB)} | ${med((x) => x.anonMiB)} | ${med((x) => x.fileMiB)} |\n`);
  }
  const loads = runs.map((x) => x.load1);
  process.stdout.write(`\nload average (1 min) at each start: ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}\n`);
}

await main();
