/**
 * One placement measurement in a process of its own. A process that timed several shapes, sizes
 * or builds one after another left some of them 1.3-1.9x slower for the rest of the run, in
 * every round, depending on what it had run before (the JIT's state, not the code measured:
 * bench/README.md, 2026-12-03). So bench/micro/placement and bench/pool-scale ask a fresh
 * `node placement-child.js <module> <job>` for each figure, where module is a build's
 * placement-cost.js and job one of:
 *
 *   decisions:<shapes>:<sizes>  one placement of each shape and size, order and records, as JSON
 *   read:<shape>                CPU µs per reading of the shape's body alone
 *   place:<shape>:<peers>[:<models>]  CPU µs per placement, each peer listing <models> models (default 2)
 *
 * Fresh processes can still disagree, with nothing else busy, by the CPU they ran on: on this
 * 2-vCPU host one vCPU at a time ran placement 1.5-1.7x slower than the other, for minutes
 * together, while a plain arithmetic loop ran alike on both (bench/README.md, 2026-12-04 13:35).
 * Read the median of several, or pin the processes (micro/placement's --cpus) and read each CPU apart.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { RequestShape } from './placement-cost.js';

type CostModule = typeof import('./placement-cost.js');

/** This build's placement-cost module, for placementInChild. */
export const THIS_BUILD = fileURLToPath(new URL('./placement-cost.js', import.meta.url));

/**
 * Rounds a child times, of which it reports the median: a fresh process spends its first three
 * or four rounds of 2,000 compiling (V8's optimising compiler runs on another thread, which
 * process.cpuUsage counts): a long prompt at 50 peers read 108-141, 65-88, 58-72, then 52-57 µs.
 */
const CHILD_ROUNDS = 11;

/**
 * What `job` prints when run in a fresh process on the build whose placement-cost module is
 * `module`; with `cpu`, the process and all its threads run on that CPU only (`taskset`, Linux).
 */
export function placementInChild(module: string, job: string, requests: number, cpu: number | null = null): string {
  const args = [fileURLToPath(import.meta.url), resolve(module), job, String(requests)];
  if (cpu === null) return execFileSync(process.execPath, args, { encoding: 'utf8' });
  return execFileSync('taskset', ['-c', String(cpu), process.execPath, ...args], { encoding: 'utf8' });
}

/** The figure a measuring job printed. */
export function cpuUsInChild(module: string, job: string, requests: number, cpu: number | null = null): number {
  const out = placementInChild(module, job, requests, cpu);
  const us = Number(out);
  if (!(us > 0)) throw new Error(`the placement child for ${job} printed ${JSON.stringify(out)}, not a figure`);
  return us;
}

async function child(module: string, job: string, requests: number): Promise<string> {
  const m = (await import(pathToFileURL(module).href)) as CostModule;
  const [what, shapeOrShapes, n, models] = job.split(':') as [string, string, string | undefined, string | undefined];
  const opts = { requests, rounds: CHILD_ROUNDS, ...(models === undefined ? {} : { models: Number(models) }) };
  if (what === 'read') return String(m.measureBodyRead(shapeOrShapes as RequestShape, opts).cpuUsPerRequest);
  if (what === 'place') return String(m.measurePlacement(Number(n), shapeOrShapes as RequestShape, opts).cpuUsPerRequest);
  if (what !== 'decisions') throw new Error(`unknown placement job ${job}`);
  const sizes = n!.split(',').map(Number);
  return JSON.stringify(
    shapeOrShapes.split(',').flatMap((shape) =>
      sizes.map((size) => {
        const p = m.onePlacement(size, shape as RequestShape);
        return { shape, size, order: p.order.map((c) => c.id), records: p.records };
      }),
    ),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [module, job, requests] = process.argv.slice(2) as [string, string, string];
  process.stdout.write(await child(module, job, Number(requests)));
}
