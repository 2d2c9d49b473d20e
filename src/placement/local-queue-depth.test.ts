import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineQueueView } from '../engines/engine-queue.js';
import { localQueueDepth, othersOnEngine } from './local-queue-depth.js';

const report = (running: number | null, waiting: number | null, ownInFlightAtReport: number, extra: Partial<EngineQueueView> = {}): EngineQueueView => ({
  running,
  waiting,
  slots: null,
  ownInFlightAtReport,
  reportedMsAgo: 100,
  ...extra,
});

describe("a local engine's queue depth: the proxy's count plus other clients' work the engine reported", () => {
  const rows: { name: string; ownNow: number; report: EngineQueueView | null | undefined; depth: number; others: number | null }[] = [
    { name: 'no report: the proxy count alone', ownNow: 2, report: null, depth: 2, others: null },
    { name: 'an engine kind that reports nothing (absent)', ownNow: 1, report: undefined, depth: 1, others: null },
    {
      name: 'a report with no request figures (llama.cpp slots alone) says nothing about requests',
      ownNow: 1,
      report: report(null, null, 0, { slots: 4 }),
      depth: 1,
      others: null,
    },
    { name: 'an idle engine that says so', ownNow: 0, report: report(0, 0, 0), depth: 0, others: 0 },
    { name: 'three requests from other clients waiting behind one running: all four count', ownNow: 0, report: report(1, 3, 0), depth: 4, others: 4 },
    { name: 'our own requests the engine also counts are not counted twice', ownNow: 2, report: report(2, 0, 2), depth: 2, others: 0 },
    { name: 'our own plus others: ours live, theirs from the report', ownNow: 2, report: report(3, 2, 2), depth: 5, others: 3 },
    { name: 'one of ours finished since the report: it stops counting at once', ownNow: 1, report: report(2, 0, 2), depth: 1, others: 0 },
    { name: 'one of ours placed since the report: it counts at once', ownNow: 3, report: report(2, 0, 2), depth: 3, others: 0 },
    {
      name: 'ours still on the way when the engine reported (its figure below ours): never below our count',
      ownNow: 2,
      report: report(0, 0, 2),
      depth: 2,
      others: 0,
    },
    { name: 'a llama.cpp report: busy slots, nothing said about waiting', ownNow: 0, report: report(2, null, 0, { slots: 4 }), depth: 2, others: 2 },
    { name: 'only a waiting figure', ownNow: 1, report: report(null, 3, 1), depth: 3, others: 2 },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.equal(localQueueDepth(row.ownNow, row.report), row.depth);
      assert.equal(othersOnEngine(row.report), row.others);
    });
  }
});
