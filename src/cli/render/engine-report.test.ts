import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineReportedStatus } from '../../status/pool-status.js';
import { engineReportCell } from './engine-report.js';

const report = (over: Partial<EngineReportedStatus>): EngineReportedStatus => ({
  running: null,
  waiting: null,
  slots: null,
  beyondThisHub: null,
  reportedMsAgo: 0,
  ...over,
});

describe("an engine's own report in cihub pool status", () => {
  const rows: { name: string; reported: EngineReportedStatus | null; cell: string }[] = [
    { name: 'an engine that said nothing: no words', reported: null, cell: '' },
    {
      name: "vLLM's queue, with the part other clients sent",
      reported: report({ running: 1, waiting: 3, beyondThisHub: 4 }),
      cell: 'engine says 1 running, 3 waiting, 4 not from this Hub',
    },
    { name: 'an idle vLLM', reported: report({ running: 0, waiting: 0, beyondThisHub: 0 }), cell: 'engine says 0 running, 0 waiting' },
    { name: "llama.cpp's busy slots and slot count", reported: report({ running: 2, slots: 4, beyondThisHub: 0 }), cell: 'engine says 2 running, 4 slots' },
  ];
  for (const row of rows) it(row.name, () => assert.equal(engineReportCell({ engineReported: row.reported }), row.cell));
});
