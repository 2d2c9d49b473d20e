/**
 * Micro-benchmark of one request's placement at 1..50 candidate peers: the in-process half of
 * bench/pool-scale (placement-cost.ts), without the Hub and its fleet, so a change to placement
 * can be timed in seconds.
 *
 *   npx tsc -p . && node dist/bench/micro/placement.js [--peers 1,10,25,50] [--shapes short,long]
 *   node dist/bench/micro/placement.js --against /path/to/other/dist/bench/pool-scale/placement-cost.js
 *   node dist/bench/micro/placement.js --cpus 0,1
 *   node dist/bench/micro/placement.js --models 2,20
 *
 * Each figure is the whole placement as the Hub runs it, reading the body included; beside each
 * shape is what reading its body alone costs (request-facts.ts, the same at any number of peers).
 * Every figure comes from a process of its own (pool-scale/placement-child.ts says why). With
 * --against, the other build's rounds alternate with this build's (this, other; other, this;
 * ...), so a machine whose load moves between rounds moves both alike; each pair gives a ratio,
 * and the median ratio is printed beside each build's median. With --cpus 0,1 (Linux, taskset)
 * every round runs its processes once on each CPU listed, pinned there, and each CPU's figures
 * are printed apart: on this host one vCPU can run placement 1.5-1.7x slower than the other for
 * minutes (pool-scale/placement-child.ts), and unpinned processes land on either. Before timing,
 * one placement of every shape and size is taken from each build and compared whole (order and
 * routing-log records): a build that decides differently on these inputs is reported and the run
 * stops. With --models, each size is timed again with each fake peer listing that many models
 * (pool-scale/peer-document.ts), this build only: another build's fixture may not take a count.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuUsInChild, placementInChild, THIS_BUILD } from '../pool-scale/placement-child.js';
import { PEER_MODELS_DEFAULT } from '../pool-scale/peer-document.js';
import { tasksetRuns } from '../proxy-overhead/cpu-pin.js';
import { median } from './measure.js';

const { values: o } = parseArgs({
  options: {
    peers: { type: 'string', default: '1,10,25,50' },
    shapes: { type: 'string', default: 'short,long' },
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '2000' },
    against: { type: 'string' },
    cpus: { type: 'string' },
    models: { type: 'string', default: String(PEER_MODELS_DEFAULT) },
  },
});
const rounds = Number(o.rounds);
const requests = Number(o.requests);
const other = o.against === undefined ? null : resolve(o.against);
/** The CPUs each round pins its processes to in turn; [null] runs them unpinned. */
const cpus: readonly (number | null)[] = o.cpus === undefined ? [null] : cpuList(o.cpus);

/** Models each fake peer lists, one pass of every size per count. */
const modelCounts: readonly number[] = modelList(o.models);
if (other !== null && modelCounts.some((m) => m !== PEER_MODELS_DEFAULT)) fail('--models times this build alone; leave out --against');

function modelList(text: string): number[] {
  const parts = text.split(',');
  if (parts.some((m) => !/^\d+$/.test(m) || Number(m) < PEER_MODELS_DEFAULT)) {
    fail(`--models takes counts of at least ${PEER_MODELS_DEFAULT}, comma-separated; got ${JSON.stringify(text)}`);
  }
  return [...new Set(parts.map(Number))];
}

function cpuList(text: string): number[] {
  if (!tasksetRuns()) fail('--cpus pins each process with taskset (Linux), which does not run here');
  const parts = text.split(',');
  if (parts.some((c) => !/^\d+$/.test(c) || Number(c) >= availableParallelism())) {
    fail(`--cpus takes CPU numbers from 0 to ${availableParallelism() - 1}, comma-separated; got ${JSON.stringify(text)}`);
  }
  return [...new Set(parts.map(Number))];
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

if (other !== null) {
  // Placement records carry no clock reading at these inputs, so two builds must agree to the byte.
  const job = `decisions:${o.shapes}:${o.peers}`;
  const mine = placementInChild(THIS_BUILD, job, requests);
  const theirs = placementInChild(other, job, requests);
  if (mine !== theirs) {
    console.error(`the builds place these shapes and sizes differently:\nthis:  ${mine}\nother: ${theirs}`);
    process.exit(1);
  }
  console.log('both builds place every shape and size alike');
}

const fmt = (v: number) => v.toFixed(1).padStart(6);
console.log(
  `CPU µs per placement: the median of ${rounds} processes, each the median of its rounds of ${requests}${other === null ? '' : ', alternated with --against'}`,
);
for (const shape of o.shapes.split(',')) {
  const reads = cpus.map((cpu) => `${cpuUsInChild(THIS_BUILD, `read:${shape}`, requests, cpu).toFixed(1)} µs${cpu === null ? '' : ` on CPU ${cpu}`}`);
  console.log(`${shape}: reading the body alone ${reads.join(', ')} (this build)`);
  for (const n of o.peers.split(',').map(Number))
    for (const models of modelCounts) {
      // The default count leaves the job as it always was, so --against reaches builds that predate --models.
      const job = models === PEER_MODELS_DEFAULT ? `place:${shape}:${n}` : `place:${shape}:${n}:${models}`;
      const size = `${String(n).padStart(3)} peers${modelCounts.length === 1 && models === PEER_MODELS_DEFAULT ? '' : ` x ${models} models`}`;
      const mine = new Map<number | null, number[]>(cpus.map((c) => [c, []]));
      const theirs = new Map<number | null, number[]>(cpus.map((c) => [c, []]));
      const ratios = new Map<number | null, number[]>(cpus.map((c) => [c, []]));
      for (let r = 0; r < rounds; r++) {
        // Each round visits the CPUs in another order, so neither always follows the other.
        for (let k = 0; k < cpus.length; k++) {
          const cpu = cpus[(r + k) % cpus.length]!;
          if (other === null) {
            mine.get(cpu)!.push(cpuUsInChild(THIS_BUILD, job, requests, cpu));
            continue;
          }
          // Alternate which build goes first, so neither always runs on the machine the other left.
          const first = r % 2 === 0 ? THIS_BUILD : other;
          const a = cpuUsInChild(first, job, requests, cpu);
          const b = cpuUsInChild(first === THIS_BUILD ? other : THIS_BUILD, job, requests, cpu);
          const [m, t] = first === THIS_BUILD ? [a, b] : [b, a];
          mine.get(cpu)!.push(m);
          theirs.get(cpu)!.push(t);
          ratios.get(cpu)!.push(m / t);
        }
      }
      for (const cpu of cpus) {
        const where = cpu === null ? '' : ` on CPU ${cpu}`;
        const ms = mine.get(cpu)!;
        const rs = ratios.get(cpu)!;
        const line = `${shape.padEnd(10)} ${size}${where}: this ${fmt(median(ms))} µs`;
        console.log(
          other === null
            ? `${line}  (processes ${ms.map((v) => v.toFixed(1)).join(' / ')})`
            : `${line}, other ${fmt(median(theirs.get(cpu)!))} µs, this/other ${median(rs).toFixed(2)}x (ratios ${rs.map((v) => v.toFixed(2)).join(' / ')})`,
        );
      }
    }
}
