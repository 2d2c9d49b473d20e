/**
 * Micro-benchmark of one request's placement at 1..50 candidate peers: the in-process half of
 * bench/pool-scale (placement-cost.ts), without the Hub and its fleet, so a change to placement
 * can be timed in seconds.
 *
 *   npx tsc -p . && node dist/bench/micro/placement.js [--peers 1,10,25,50] [--shapes short,long]
 *   node dist/bench/micro/placement.js --against /path/to/other/dist/bench/pool-scale/placement-cost.js
 *
 * With --against, the other build's placement-cost module is loaded beside this one and the two
 * are timed in alternate rounds (this, other, this, other, ...), so a machine whose load moves
 * between rounds moves both alike; each pair gives a ratio, and the median ratio is printed
 * beside each build's median. Before timing, one placement of every shape and size is taken from
 * each build and compared whole (order and routing-log records): a build that decides
 * differently on these inputs is reported and the run stops.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import * as here from '../pool-scale/placement-cost.js';
import { median } from './measure.js';

type CostModule = typeof here;

const { values: o } = parseArgs({
  options: {
    peers: { type: 'string', default: '1,10,25,50' },
    shapes: { type: 'string', default: 'short,long' },
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '2000' },
    against: { type: 'string' },
  },
});
const counts = o.peers.split(',').map(Number);
const shapes = o.shapes.split(',') as here.RequestShape[];
const rounds = Number(o.rounds);
const requests = Number(o.requests);
const other: CostModule | null = o.against === undefined ? null : ((await import(pathToFileURL(resolve(o.against)).href)) as CostModule);

/** Placement records carry no clock reading at these inputs, so two builds must agree to the byte. */
if (other !== null) {
  for (const shape of shapes) {
    for (const n of counts) {
      const a = here.onePlacement(n, shape);
      const b = other.onePlacement(n, shape);
      const same =
        isDeepStrictEqual(
          a.order.map((c) => c.id),
          b.order.map((c) => c.id),
        ) && JSON.stringify(a.records) === JSON.stringify(b.records);
      if (!same) {
        console.error(`the builds place ${shape} at ${n} peers differently:\nthis:  ${JSON.stringify(a)}\nother: ${JSON.stringify(b)}`);
        process.exit(1);
      }
    }
  }
  console.log('both builds place every shape and size alike');
}

const one = (m: CostModule, n: number, shape: here.RequestShape) => m.measurePlacement(n, shape, { requests, rounds: 1 }).cpuUsPerRequest;

console.log(`CPU µs per placement, median of ${rounds} rounds of ${requests}${other === null ? '' : ', alternated with --against'}`);
for (const shape of shapes) {
  for (const n of counts) {
    const mine: number[] = [];
    const theirs: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate which build goes first, so neither always runs right after the other's garbage.
      if (other !== null && r % 2 === 1) theirs.push(one(other, n, shape));
      mine.push(one(here, n, shape));
      if (other !== null && r % 2 === 0) theirs.push(one(other, n, shape));
      if (other !== null) ratios.push(mine[r]! / theirs[r]!);
    }
    const line = `${shape.padEnd(5)} ${String(n).padStart(3)} peers: this ${median(mine).toFixed(1).padStart(6)} µs`;
    console.log(
      other === null
        ? `${line}  (rounds ${mine.map((v) => v.toFixed(1)).join(' / ')})`
        : `${line}, other ${median(theirs).toFixed(1).padStart(6)} µs, this/other ${median(ratios).toFixed(2)}x (ratios ${ratios.map((v) => v.toFixed(2)).join(' / ')})`,
    );
  }
}
