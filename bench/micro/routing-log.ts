/**
 * Micro-benchmark of the routing log's request path: what one proxied request costs the ring
 * (open + settle, and open + update + settle for a stream), and what a dashboard's page costs.
 *
 *   npx tsc -p . && node --expose-gc dist/bench/micro/routing-log.js [--impl path/to/ring.js] [--rounds N] [--ops N]
 *
 * --impl loads another compiled ring.js (e.g. a saved copy of an older build) so two
 * implementations can be compared on the same machine minutes apart.
 *
 * The patches are built per request as src/proxy builds them (the settle patch by the walk's own
 * settledRow, a full placement-records object in open), so "bytes/op" includes the caller's own objects;
 * the "caller's objects alone" line measures just those, to subtract.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ManualClock } from '../../src/util/clock.js';
import type { RoutingLog as RoutingLogType, OpenFields, RowPatch, SettlePatch } from '../../src/routing-log/ring.js';
import { NULL_PLACEMENT_RECORDS } from '../../src/routing-log/entry.js';
import type { Candidate } from '../../src/placement/types.js';
import { settledRow } from '../../src/proxy/walk-rows.js';
import type { WalkOutcome, WalkRequest } from '../../src/proxy/walk-types.js';
import { hasGc, measure, report } from './measure.js';

const { values } = parseArgs({
  options: {
    impl: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    ops: { type: 'string', default: '100000' },
  },
});
const implUrl = values.impl === undefined ? new URL('../../src/routing-log/ring.js', import.meta.url).href : pathToFileURL(resolve(values.impl)).href;
const { RoutingLog } = (await import(implUrl)) as { RoutingLog: typeof RoutingLogType };
const rounds = Number(values.rounds);
const opsPerRound = Number(values.ops);

/** The ring size the Hub runs with by default (HUB_POOL_ROUTING_LOG_SIZE). */
const SIZE = 200;
const IDS = Array.from({ length: 1024 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

function openFields(i: number): OpenFields {
  return {
    id: IDS[i & 1023]!,
    direction: 'outbound',
    path: '/v1/chat/completions',
    model: 'bench-model',
    candidates: 1,
    stream: false,
    bodyBytes: 67,
    budgetMs: 300_000,
    placement: { ...NULL_PLACEMENT_RECORDS },
  };
}

function updatePatch(): RowPatch {
  return { node: 'local', backend: 'llamacpp', status: 200, durationMs: 1 };
}

/** Only rowNode is read from the request (null: the entry node's own row). */
const ENTRY_REQUEST = { rowNode: null } as unknown as WalkRequest;
const SERVED_LOCALLY = { node: 'local', engine: 'llamacpp' } as Candidate;

/**
 * The settle patch from the walk's own settledRow, so the ring reads the object the proxy hands
 * it: a hand-written literal here once hid a settle patch whose hidden class was new on every
 * request, 10x slower to read (bench/README.md, 2026-12-03).
 */
function settlePatch(): SettlePatch {
  const outcome = { end: 'committed', served: SERVED_LOCALLY, attempt: 1, status: 200, headersMs: 1, totalMs: 2, bodyFault: null, verdict: null, failures: [] };
  return settledRow(ENTRY_REQUEST, outcome as unknown as WalkOutcome);
}

/** A full ring on a clock that moves 1 ms per request: each request stamps a new millisecond. */
function fullRing(): { log: RoutingLogType; clock: ManualClock } {
  const clock = new ManualClock();
  const log = new RoutingLog({ size: SIZE, clock, bootId: 'bench' });
  for (let i = 0; i < SIZE * 2; i++) {
    log.open(openFields(i));
    log.settle(IDS[i & 1023]!, settlePatch());
  }
  return { log, clock };
}

const opts = { rounds, opsPerRound };
const lines: string[] = [];
let sink: unknown;

lines.push(
  report(
    "caller's objects alone (no ring)",
    await measure((i) => {
      sink = openFields(i);
      sink = settlePatch();
    }, opts),
  ),
);

{
  const { log, clock } = fullRing();
  lines.push(
    report(
      'open + settle (non-streamed request)',
      await measure((i) => {
        clock.advance(1);
        log.open(openFields(i));
        log.settle(IDS[i & 1023]!, settlePatch());
      }, opts),
    ),
  );
}

{
  const { log, clock } = fullRing();
  lines.push(
    report(
      'open + update + settle (streamed request)',
      await measure((i) => {
        clock.advance(1);
        const id = IDS[i & 1023]!;
        log.open(openFields(i));
        log.update(id, updatePatch());
        log.settle(id, settlePatch());
      }, opts),
    ),
  );
}

{
  // A dashboard poll between requests: a page of the newest 200 on a full ring, one request
  // placed and settled since the last page.
  const { log, clock } = fullRing();
  lines.push(
    report(
      'page() of 200 rows, one request between pages',
      await measure(
        (i) => {
          clock.advance(1);
          log.open(openFields(i));
          log.settle(IDS[i & 1023]!, settlePatch());
          sink = log.page();
        },
        { rounds, opsPerRound: Math.max(1, Math.floor(opsPerRound / 20)), allocBatch: 100 },
      ),
    ),
  );
}

void sink;
console.log(`routing log micro-benchmark: ring of ${SIZE}, ${opsPerRound} requests per round, ${rounds} rounds, median shown`);
console.log(`impl: ${implUrl}`);
if (!hasGc) console.log('(no --expose-gc: allocation figures left out)');
for (const line of lines) console.log(line);
