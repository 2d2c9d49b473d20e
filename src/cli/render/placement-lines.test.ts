import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NULL_PLACEMENT_RECORDS, type RoutingLogEntry } from '../../routing-log/entry.js';
import type { ContentionRecord, SlotsRecord, ThroughputEstimate, ThroughputRecord } from '../../routing-log/placement-records.js';
import { contentionLines, slotsLines, throughputLines } from './placement-lines.js';

const AT = '2026-09-30T12:00:00.000Z';
function row(overrides: Partial<RoutingLogEntry>): RoutingLogEntry {
  return {
    ...NULL_PLACEMENT_RECORDS,
    id: 'r',
    timestamp: AT,
    updatedAt: AT,
    direction: 'outbound',
    path: '/api/chat',
    model: 'qwen3.6:35b',
    node: 'core-2.tail0.ts.net',
    backend: null,
    backendId: null,
    candidates: 2,
    attempt: 1,
    failedOverFrom: [],
    attempts: [],
    outcome: 'served',
    status: 200,
    durationMs: 900,
    totalMs: 4000,
    clientClosed: false,
    stoppedReadingMs: null,
    requestError: null,
    reason: null,
    stream: true,
    bodyBytes: 160_000,
    budgetMs: 327_000,
    traceId: null,
    ...overrides,
  };
}

const BETA_MAX = { node: 'beta-max.tail0.ts.net', backend: null, backendId: null, inFlight: 2, loadReported: true, slots: 2 } as const;
const BETA_MAX_4 = { ...BETA_MAX, inFlight: 4, slots: 4 } as const;
const LOCAL_FULL = { node: 'local', backend: 'ollama', backendId: 'ollama', inFlight: 2, loadReported: true, slots: 2 } as const;
const slots = (over: Partial<SlotsRecord>): SlotsRecord => ({ demoted: [BETA_MAX], allFull: false, full: [BETA_MAX], overridden: false, ...over });
const OPENCLAW = { model: 'qwen3.8:27b', numCtx: 65536 } as const;
const contention = (over: Partial<ContentionRecord['demoted'][number]>, overridden = false): ContentionRecord => ({
  numCtx: 65536,
  demoted: [
    {
      node: 'local',
      backend: 'ollama',
      backendId: 'ollama',
      busyWith: [OPENCLAW],
      runsAt: 65536,
      behind: ['core-2.tail0.ts.net'],
      overriddenBy: null,
      ...over,
    },
  ],
  overridden,
});
const throughput = (over: Partial<ThroughputRecord>): ThroughputRecord => ({
  estimatedTokens: 35_809,
  budgetMs: 327_000,
  estimates: [],
  unmeasured: [],
  slowerDemoted: [],
  overridden: false,
  ...over,
});

/** fzzy read forward to a prompt it is predicted to miss the budget on, moved behind the others. */
const SLOW_FZZY: ThroughputEstimate = {
  node: 'fzzy.tail0.ts.net',
  backend: null,
  backendId: null,
  tokensPerSec: 123,
  fromPromptTokens: 10_600,
  extrapolated: true,
  predictedMs: 873_000,
  source: 'observed',
  deadline: false,
  slow: true,
  moved: true,
};

describe('pool log lines for slots, throughput and contention', () => {
  const rows: readonly { name: string; lines: (r: RoutingLogEntry) => readonly string[]; row: RoutingLogEntry; expect: readonly string[] }[] = [
    { name: 'slots null: no line', lines: slotsLines, row: row({}), expect: [] },
    { name: 'every candidate had a free slot: no line', lines: slotsLines, row: row({ slots: slots({ demoted: [], full: [] }) }), expect: [] },
    {
      name: 'a full engine was moved',
      lines: slotsLines,
      row: row({ slots: slots({}) }),
      expect: ['moved beta-max.tail0.ts.net (2 in flight, 2 slots) behind nodes with a free slot'],
    },
    {
      name: 'a peer that reported no load was judged full on the assumed figure, and the line says so',
      lines: slotsLines,
      row: row({ slots: slots({ demoted: [{ ...BETA_MAX, loadReported: false }] }) }),
      expect: ['moved beta-max.tail0.ts.net (2 in flight assumed, no load reported, 2 slots) behind nodes with a free slot'],
    },
    {
      name: 'the request landed on the full node that was moved, because nothing ahead of it answered',
      lines: slotsLines,
      row: row({ node: BETA_MAX.node, slots: slots({ overridden: true }) }),
      expect: [
        'moved beta-max.tail0.ts.net (2 in flight, 2 slots) behind nodes with a free slot',
        'placed anyway with every slot full on beta-max.tail0.ts.net (2 in flight, 2 slots): nothing with a free slot answered',
      ],
    },
    {
      name: 'every node that states slots was full: nothing moved, and the line says so without calling it placed anyway',
      lines: slotsLines,
      row: row({ node: 'local', backend: 'ollama', backendId: 'ollama', slots: slots({ demoted: [], allFull: true, full: [LOCAL_FULL, BETA_MAX_4] }) }),
      expect: [
        "every slot full on local (2 in flight, 2 slots), beta-max.tail0.ts.net (4 in flight, 4 slots): none had a free one to go ahead, so the ranker's order stood",
      ],
    },
    {
      name: 'a full node in a group with no free one was not moved: landing on it gets no line',
      lines: slotsLines,
      row: row({ node: BETA_MAX.node, slots: slots({ demoted: [], full: [BETA_MAX] }) }),
      expect: [],
    },
    {
      name: "a full ollama-1 was moved and ollama-2 served: no 'placed anyway' on the engine that was not moved",
      lines: slotsLines,
      row: row({
        node: 'local',
        backend: 'ollama',
        backendId: 'ollama-2',
        slots: slots({ demoted: [{ ...LOCAL_FULL, backendId: 'ollama-1' }], full: [{ ...LOCAL_FULL, backendId: 'ollama-1' }], overridden: true }),
      }),
      expect: ['moved local (2 in flight, 2 slots) behind nodes with a free slot'],
    },
    { name: 'contention null: no line', lines: contentionLines, row: row({}), expect: [] },
    {
      name: 'a busy ollama-1 kept its place and ollama-2 served: no line says ollama-1 served',
      lines: contentionLines,
      row: row({ node: 'local', backend: 'ollama', backendId: 'ollama-2', contention: contention({ backendId: 'ollama-1', behind: [] }) }),
      expect: [],
    },
    {
      name: 'the engine gave way',
      lines: contentionLines,
      row: row({ contention: contention({}) }),
      expect: ['moved local (busy with qwen3.8:27b at num_ctx 65536; this one at num_ctx 65536) behind core-2.tail0.ts.net'],
    },
    {
      name: 'nothing it gave way to answered',
      lines: contentionLines,
      row: row({ node: 'local', backend: 'ollama', backendId: 'ollama', contention: contention({}, true) }),
      expect: ['placed anyway on local (busy with qwen3.8:27b at num_ctx 65536; this one at num_ctx 65536): nothing it gave way to answered'],
    },
    {
      name: 'it kept its place and served: the line names both reasons, since the record does not say which held',
      lines: contentionLines,
      row: row({ node: 'local', backend: 'ollama', backendId: 'ollama', contention: contention({ behind: [] }) }),
      expect: [
        'kept local (busy with qwen3.8:27b at num_ctx 65536; this one at num_ctx 65536) first: every node after it was busier, or moved behind it by a line above',
      ],
    },
    {
      name: 'it kept its place because slots had moved the only peer behind it: the line does not call that peer busier',
      lines: (r: RoutingLogEntry) => [...slotsLines(r), ...contentionLines(r)],
      row: row({ node: 'local', backend: 'ollama', backendId: 'ollama', slots: slots({}), contention: contention({ behind: [] }) }),
      expect: [
        'moved beta-max.tail0.ts.net (2 in flight, 2 slots) behind nodes with a free slot',
        'kept local (busy with qwen3.8:27b at num_ctx 65536; this one at num_ctx 65536) first: every node after it was busier, or moved behind it by a line above',
      ],
    },
    {
      name: 'affinity held it, and it served',
      lines: contentionLines,
      row: row({ node: 'local', backend: 'ollama', backendId: 'ollama', contention: contention({ behind: [], overriddenBy: 'affinity' }) }),
      expect: [
        "kept local (busy with qwen3.8:27b at num_ctx 65536; this one at num_ctx 65536) first: it holds this session's prompt prefix, which prefix affinity follows over contention",
      ],
    },
    { name: 'throughput null: no line', lines: throughputLines, row: row({}), expect: [] },
    {
      name: 'the much-slower rule moved core-7 behind beta-max',
      lines: throughputLines,
      row: row({
        throughput: throughput({
          slowerDemoted: [
            {
              node: 'core-7.tail0.ts.net',
              backend: null,
              predictedMs: 162_910,
              inFlight: 0,
              loadReported: true,
              fasterNode: 'beta-max.tail0.ts.net',
              fasterBackend: null,
              fasterMs: 34_651,
              fasterInFlight: 0,
              fasterLoadReported: true,
            },
          ],
        }),
      }),
      expect: [
        'moved core-7.tail0.ts.net (predicted 163 s, 0 in flight) behind beta-max.tail0.ts.net (predicted 35 s, 0 in flight): much slower than a node as free',
      ],
    },
    {
      name: 'the much-slower rule says which queue depths were assumed',
      lines: throughputLines,
      row: row({
        throughput: throughput({
          slowerDemoted: [
            {
              node: 'core-7.tail0.ts.net',
              backend: null,
              predictedMs: 162_910,
              inFlight: 2,
              loadReported: false,
              fasterNode: 'local',
              fasterBackend: 'ollama',
              fasterMs: 34_651,
              fasterInFlight: 1,
              fasterLoadReported: true,
            },
          ],
        }),
      }),
      expect: [
        'moved core-7.tail0.ts.net (predicted 163 s, 2 in flight assumed, no load reported) behind local (predicted 35 s, 1 in flight): much slower than a node as free',
      ],
    },
    {
      name: 'an unmeasured CPU-tier peer was deferred',
      lines: throughputLines,
      row: row({ throughput: throughput({ unmeasured: [{ node: 'fzzy.tail0.ts.net', backend: null, prior: 'cpu-only' }] }) }),
      expect: ['moved fzzy.tail0.ts.net behind a node measured to meet the budget: nothing has timed it for ~35809 tokens, and it reports a CPU-only tier'],
    },
    {
      name: 'a node predicted to miss the budget moved, naming the size it was read forward from',
      lines: throughputLines,
      row: row({
        throughput: throughput({
          estimates: [
            SLOW_FZZY,
            {
              node: 'core-6.tail0.ts.net',
              backend: null,
              backendId: null,
              tokensPerSec: 496,
              fromPromptTokens: 48_000,
              extrapolated: false,
              predictedMs: 72_000,
              source: 'advertised',
              deadline: false,
              slow: false,
              moved: false,
            },
          ],
        }),
      }),
      expect: [
        'moved fzzy.tail0.ts.net behind nodes that meet the 327 s budget for ~35809 tokens: predicted 873 s, read forward from 10600 tokens at 123 tok/s, observed',
      ],
    },
    {
      name: 'every node ranked with it was slow too: kept in place, not moved',
      lines: throughputLines,
      row: row({
        throughput: throughput({
          estimates: [
            { ...SLOW_FZZY, moved: false },
            { ...SLOW_FZZY, node: 'core-7.tail0.ts.net', predictedMs: 900_000, moved: false },
          ],
        }),
      }),
      expect: [
        'kept fzzy.tail0.ts.net (predicted 873 s), core-7.tail0.ts.net (predicted 900 s) in place though predicted to miss the 327 s budget for ~35809 tokens: nothing ranked with them could go first',
      ],
    },
    {
      name: 'a slow node moved behind an unmeasured one, then served when the unmeasured one failed',
      lines: throughputLines,
      row: row({ node: SLOW_FZZY.node, throughput: throughput({ estimates: [SLOW_FZZY], overridden: true }) }),
      expect: [
        'moved fzzy.tail0.ts.net behind nodes that meet the 327 s budget for ~35809 tokens: predicted 873 s, read forward from 10600 tokens at 123 tok/s, observed',
        'placed anyway on fzzy.tail0.ts.net, predicted 873 s, read forward from 10600 tokens at 123 tok/s, observed: nothing ahead of it answered',
      ],
    },
  ];
  for (const r of rows) it(r.name, () => assert.deepEqual(r.lines(r.row), r.expect));
});
