/**
 * Micro-benchmark of one request's placement at 1..50 candidate peers: the in-process half of
 * bench/pool-scale (placement-cost.ts), without the Hub and its fleet, so a change to placement
 * can be timed in seconds.
 *
 *   npx tsc -p . && node dist/bench/micro/placement.js [--peers 1,10,25,50] [--shapes short,long]
 *   node dist/bench/micro/placement.js --against /path/to/other/dist/bench/pool-scale/placement-cost.js
 *
 * Each figure is the whole placement as the Hub runs it, reading the body included; beside each
 * shape is what reading its body alone costs (request-facts.ts, the same at any number of peers).
 * Every figure comes from a process of its own (pool-scale/placement-child.ts says why). With
 * --against, the other build's rounds alternate with this build's (this, other; other, this;
 * ...), so a machine whose load moves between rounds moves both alike; each pair gives a ratio,
 * and the median ratio is printed beside each build's median. Before timing, one placement of
 * every shape and size is taken from each build and compared whole (order and routing-log
 * records): a build that decides differently on these inputs is reported and the run stops.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuUsInChild, placementInChild, THIS_BUILD } from '../pool-scale/placement-child.js';
import { median } from './measure.js';

const { values: o } = parseArgs({
  options: {
    peers: { type: 'string', default: '1,10,25,50' },
    shapes: { type: 'string', default: 'short,long' },
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '2000' },
    against: { type: 'string' },
  },
});
const rounds = Number(o.rounds);
const requests = Number(o.requests);
const other = o.against === undefined ? null : resolve(o.against);

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
  console.log(`${shape}: reading the body alone ${cpuUsInChild(THIS_BUILD, `read:${shape}`, requests).toFixed(1)} µs (this build)`);
  for (const n of o.peers.split(',').map(Number)) {
    const job = `place:${shape}:${n}`;
    const mine: number[] = [];
    const theirs: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (other === null) {
        mine.push(cpuUsInChild(THIS_BUILD, job, requests));
        continue;
      }
      // Alternate which build goes first, so neither always runs on the machine the other left.
      const first = r % 2 === 0 ? THIS_BUILD : other;
      const a = cpuUsInChild(first, job, requests);
      const b = cpuUsInChild(first === THIS_BUILD ? other : THIS_BUILD, job, requests);
      const [m, t] = first === THIS_BUILD ? [a, b] : [b, a];
      mine.push(m);
      theirs.push(t);
      ratios.push(m / t);
    }
    const line = `${shape.padEnd(10)} ${String(n).padStart(3)} peers: this ${fmt(median(mine))} µs`;
    console.log(
      other === null
        ? `${line}  (processes ${mine.map((v) => v.toFixed(1)).join(' / ')})`
        : `${line}, other ${fmt(median(theirs))} µs, this/other ${median(ratios).toFixed(2)}x (ratios ${ratios.map((v) => v.toFixed(2)).join(' / ')})`,
    );
  }
}
