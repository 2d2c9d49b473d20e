import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NULL_PLACEMENT_RECORDS, type AffinityRecord, type RoutingLogEntry } from '../../routing-log/entry.js';
import { countRows } from '../../routing-log/summary.js';
import { affinityQualified, renderRoutingLog } from './routing-log.js';

const AT = '2026-09-21T20:09:06.118Z';
const row = (affinity: AffinityRecord | null): RoutingLogEntry => ({
  ...NULL_PLACEMENT_RECORDS,
  affinity,
  id: 'req-1',
  timestamp: AT,
  updatedAt: AT,
  direction: 'outbound',
  path: '/api/chat',
  model: 'qwen3.6:35b',
  node: 'core-2',
  backend: 'ollama',
  backendId: null,
  candidates: 3,
  attempt: 1,
  failedOverFrom: [],
  attempts: [],
  outcome: 'served',
  status: 200,
  durationMs: 812,
  totalMs: 4_020,
  clientClosed: false,
  stoppedReadingMs: null,
  requestError: null,
  reason: null,
  stream: true,
  bodyBytes: 2_048,
  budgetMs: 300_000,
  traceId: null,
});
const arrows = (entry: RoutingLogEntry) =>
  renderRoutingLog({
    entries: [entry],
    nextSince: AT,
    matched: 1,
    summary: { bootId: 'b', startedAt: AT, totalRecorded: 1, recorded: 1, oldestAt: AT, counts: countRows([entry]) },
  })
    .split('\n')
    .filter((l) => l.startsWith('  ↳'));
const rec = (over: Partial<AffinityRecord>): AffinityRecord => ({
  outcome: 'hit',
  key: 'hashed',
  qualified: true,
  remembered: 'core-2',
  inFlight: 1,
  loadReported: true,
  leastLoadedInFlight: 0,
  maxInFlight: 2,
  affinityMargin: 0,
  ...over,
});

describe('cihub pool log: prefix affinity lines', () => {
  const cases: readonly { name: string; affinity: AffinityRecord | null; lines: string[] }[] = [
    { name: 'off: no line', affinity: null, lines: [] },
    { name: 'a miss: no line', affinity: rec({ outcome: 'miss', qualified: false, remembered: null, inFlight: null }), lines: [] },
    {
      name: 'a qualified hit, keyed by the header',
      affinity: rec({ key: 'header' }),
      lines: ["  ↳ prefix affinity placed this on core-2, which holds this prompt's prefix (1 in flight, limit 2); session from X-Hub-Pool-Session"],
    },
    {
      name: 'an unqualified hit reads as ranking alone',
      affinity: rec({ qualified: false, inFlight: 2 }),
      lines: [
        "  ↳ landed on core-2, which holds this prompt's prefix, by ranking alone (affinity stood aside: 2 in flight, limit 2); session from prompt digest",
      ],
    },
    {
      name: 'skipped on the assumed load of a peer that reported none',
      affinity: rec({ outcome: 'skipped', qualified: false, inFlight: 2, loadReported: false }),
      lines: [
        "  ↳ prefix affinity skipped core-2, which holds this prompt's prefix: its queue is too deep (2 in flight assumed, no load reported, limit 2); session from prompt digest",
      ],
    },
    {
      name: 'skipped for a deep queue, with the margin it was measured against',
      affinity: rec({ outcome: 'skipped', qualified: false, inFlight: 6, leastLoadedInFlight: 1, affinityMargin: 2 }),
      lines: [
        "  ↳ prefix affinity skipped core-2, which holds this prompt's prefix: its queue is too deep (6 in flight, limit 2, margin 2 over the least-loaded 1); session from prompt digest",
      ],
    },
    {
      name: 'skipped because a later rule won',
      affinity: rec({ outcome: 'skipped' }),
      lines: ['  ↳ prefix affinity chose core-2, but a later rule put another node first; session from prompt digest'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(arrows(row(c.affinity)), c.lines));
});

describe("cihub pool log: an affinity row from a Hub that predates the record's later fields", () => {
  /** The record as such a Hub wrote it: `qualified` left out, and leastLoadedInFlight too when `withLeast` is false. */
  const older = (over: Partial<AffinityRecord>, withLeast = true): RoutingLogEntry => {
    const { qualified: _q, leastLoadedInFlight, ...rest } = rec(over);
    return row({ ...rest, ...(withLeast ? { leastLoadedInFlight } : {}) } as AffinityRecord);
  };
  const cases: readonly { name: string; entry: RoutingLogEntry; qualified: boolean | null; lines: string[] }[] = [
    {
      name: 'a hit under its limit reads as affinity placing it',
      entry: older({ inFlight: 0 }),
      qualified: true,
      lines: ["  ↳ prefix affinity placed this on core-2, which holds this prompt's prefix (0 in flight, limit 2); session from prompt digest"],
    },
    {
      name: 'a hit at its limit, with no margin, reads as ranking alone',
      entry: older({ inFlight: 2 }),
      qualified: false,
      lines: [
        "  ↳ landed on core-2, which holds this prompt's prefix, by ranking alone (affinity stood aside: 2 in flight, limit 2); session from prompt digest",
      ],
    },
    {
      name: 'a hit past its limit but within the margin it names the least-loaded queue for reads as affinity',
      entry: older({ inFlight: 3, loadReported: true, leastLoadedInFlight: 1, affinityMargin: 3 }),
      qualified: true,
      lines: [
        "  ↳ prefix affinity placed this on core-2, which holds this prompt's prefix (3 in flight, limit 2, margin 3 over the least-loaded 1); session from prompt digest",
      ],
    },
    {
      name: 'a margin row without the least-loaded queue says it cannot tell',
      entry: older({ inFlight: 3, affinityMargin: 3 }, false),
      qualified: null,
      lines: [
        "  ↳ landed on core-2, which holds this prompt's prefix; this Hub's row does not say whether its margin qualified it (3 in flight, limit 2, margin 3 over the least-loaded ?); session from prompt digest",
      ],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      assert.equal(affinityQualified(c.entry.affinity!), c.qualified);
      assert.deepEqual(arrows(c.entry), c.lines);
    });
});
