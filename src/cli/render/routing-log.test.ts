import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NULL_PLACEMENT_RECORDS, type RoutingLogEntry, type RoutingLogPage } from '../../routing-log/entry.js';
import { countRows } from '../../routing-log/summary.js';
import { headerLine, renderRoutingLog } from './routing-log.js';

const AT = '2026-09-21T20:09:06.118Z';

function row(overrides: Partial<RoutingLogEntry> = {}): RoutingLogEntry {
  return {
    ...NULL_PLACEMENT_RECORDS,
    id: 'req-1',
    timestamp: AT,
    updatedAt: AT,
    direction: 'outbound',
    path: '/v1/chat/completions',
    model: 'qwen3-coder:30b',
    node: 'local',
    backend: 'ollama',
    backendId: 'ollama',
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
    ...overrides,
  };
}

/** The row as a Hub from before the field wrote it: the field left out, not null. */
function withoutStoppedReadingMs(entry: RoutingLogEntry): RoutingLogEntry {
  const { stoppedReadingMs: _absent, ...older } = entry;
  return older as RoutingLogEntry;
}

function pageOf(entries: readonly RoutingLogEntry[]): RoutingLogPage {
  return {
    entries,
    nextSince: AT,
    matched: entries.length,
    summary: {
      bootId: 'boot',
      startedAt: AT,
      totalRecorded: entries.length,
      recorded: entries.length,
      oldestAt: entries.at(-1)?.timestamp ?? null,
      counts: countRows(entries),
    },
  };
}

/** The rendered lines under the header. */
function body(entries: readonly RoutingLogEntry[], now?: number): string[] {
  return renderRoutingLog(pageOf(entries), now === undefined ? {} : { now })
    .split('\n')
    .slice(1, -1);
}

const hangUp = row({ candidates: 14, attempt: 1, outcome: 'failed', status: null, durationMs: null, totalMs: 30_031, clientClosed: true });

describe('renderRoutingLog rows', () => {
  const cases: readonly { name: string; entries: readonly RoutingLogEntry[]; now?: number; lines: readonly string[] }[] = [
    {
      name: "the spec's hang-up: 1/14 after 30031 ms, local waited on, not a routing failure",
      entries: [hangUp],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      -        1/14  30031   ✗ failed',
        '  ↳ the app closed its connection after 30031 ms; local had not answered yet — not a routing failure',
      ],
    },
    {
      name: "the spec's sample row, column for column, when headers had arrived",
      entries: [row({ node: null, candidates: 14, outcome: 'failed', status: null, durationMs: 30_031 })],
      lines: ['2026-09-21 20:09:06Z out  qwen3-coder:30b      -        1/14  30031   ✗ failed'],
    },
    {
      name: 'a hang-up after the node had started answering',
      entries: [row({ outcome: 'failed', status: 200, clientClosed: true, totalMs: 9_000 })],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local    1/3   812     ✗ failed',
        '  ↳ the app closed its connection after 9000 ms; local was part-way through its answer (HTTP 200) — not a routing failure',
      ],
    },
    {
      name: 'an app this Hub closed for not reading: the line says it stopped reading, for how long, and that the Hub closed it',
      entries: [
        row({
          outcome: 'failed',
          status: 200,
          clientClosed: true,
          stoppedReadingMs: 300_000,
          totalMs: 301_250,
          reason: 'the caller stopped reading for at least 300000 ms',
        }),
      ],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local    1/3   812     ✗ failed',
        '  ↳ the app stopped reading for at least 300000 ms, so this Hub closed its connection after 301250 ms; local was part-way through its answer (HTTP 200) — not a routing failure',
      ],
    },
    {
      name: 'a hang-up row from a Hub that predates stoppedReadingMs reads as the app closing its connection',
      entries: [withoutStoppedReadingMs(row({ outcome: 'failed', status: 200, clientClosed: true, totalMs: 9_000 }))],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local    1/3   812     ✗ failed',
        '  ↳ the app closed its connection after 9000 ms; local was part-way through its answer (HTTP 200) — not a routing failure',
      ],
    },
    {
      name: 'a sending Hub this peer closed for not reading its forward: named as stopping reading, not as giving up',
      entries: [
        row({
          direction: 'inbound',
          node: 'core-2',
          candidates: 1,
          outcome: 'failed',
          status: 200,
          totalMs: 601_000,
          clientClosed: true,
          stoppedReadingMs: 600_000,
          reason: 'the caller stopped reading for at least 600000 ms',
        }),
      ],
      lines: [
        '2026-09-21 20:09:06Z in   qwen3-coder:30b      core-2   1/1   812     ✗ failed',
        "  ↳ core-2 stopped reading this forward for at least 600000 ms, so this Hub closed it after 601000 ms — the sender's side, not a failure of this node",
      ],
    },
    {
      name: 'a hang-up before any node answered or was named',
      entries: [row({ node: null, outcome: 'failed', status: null, durationMs: null, totalMs: 120, clientClosed: true })],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      -        1/3   120     ✗ failed',
        '  ↳ the app closed its connection after 120 ms, before any node answered — not a routing failure',
      ],
    },
    {
      name: 'an inbound forward its sender gave up on',
      entries: [
        row({ direction: 'inbound', node: 'core-2', candidates: 1, outcome: 'failed', status: null, durationMs: null, totalMs: 5_000, clientClosed: true }),
      ],
      lines: [
        '2026-09-21 20:09:06Z in   qwen3-coder:30b      core-2   1/1   5000    ✗ failed',
        "  ↳ core-2 stopped waiting for this forward after 5000 ms — the sender's choice, not a failure of this node",
      ],
    },
    {
      name: 'a plain served row gets no explanation',
      entries: [row()],
      lines: ['2026-09-21 20:09:06Z out  qwen3-coder:30b      local    1/3   812     ✓ served'],
    },
    {
      name: 'a row served after two failovers lists each, with its engine when known',
      entries: [
        row({
          node: 'core-2',
          backend: 'vllm',
          attempt: 3,
          failedOverFrom: ['local', 'beta-1'],
          attempts: [
            { node: 'local', backend: 'ollama', status: 503, reason: 'HTTP 503' },
            { node: 'beta-1', backend: null, status: null, reason: 'fetch failed (ECONNREFUSED)' },
          ],
        }),
      ],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      core-2   3/3   812     ✓ served',
        '  ↳ failed over from local (ollama): HTTP 503',
        '  ↳ failed over from beta-1: fetch failed (ECONNREFUSED)',
      ],
    },
    {
      // As the Hub records a walk that ran out (walk-rows.ts): attempts lists the last candidate too, failedOverFrom does not.
      name: 'a walk that ran out fails over from all but the last candidate, and names the last with its reason',
      entries: [
        row({
          node: null,
          backend: null,
          candidates: 2,
          attempt: 2,
          outcome: 'failed',
          status: null,
          durationMs: null,
          failedOverFrom: ['local'],
          attempts: [
            { node: 'local', backend: 'ollama', status: 500, reason: 'HTTP 500' },
            { node: 'core-2', backend: null, status: null, reason: 'No response headers within 300000ms' },
          ],
          reason: 'No response headers within 300000ms',
        }),
      ],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      -        2/2   4020    ✗ failed',
        '  ↳ failed over from local (ollama): HTTP 500',
        '  ↳ all 2 candidates failed; the last: core-2: No response headers within 300000ms',
      ],
    },
    {
      name: 'a lone candidate that failed was not failed over from',
      entries: [
        row({
          node: null,
          backend: null,
          candidates: 1,
          attempt: 1,
          outcome: 'failed',
          status: null,
          durationMs: null,
          failedOverFrom: [],
          attempts: [{ node: 'local', backend: 'ollama', status: 503, reason: 'HTTP 503' }],
          reason: 'HTTP 503',
        }),
      ],
      lines: ['2026-09-21 20:09:06Z out  qwen3-coder:30b      -        1/1   4020    ✗ failed', '  ↳ its only candidate failed: local (ollama): HTTP 503'],
    },
    {
      name: 'a request nothing could take',
      entries: [
        row({
          node: null,
          model: null,
          candidates: 0,
          attempt: null,
          outcome: 'failed',
          status: null,
          durationMs: null,
          reason: 'no candidate holds the model',
        }),
      ],
      lines: ['2026-09-21 20:09:06Z out  -                    -        -/0   4020    ✗ failed', '  ↳ no node was tried: no candidate holds the model'],
    },
    {
      name: 'a definitive verdict names the signature and basis, never the message',
      entries: [row({ outcome: 'failed', status: 500, requestError: { signature: 'no-user-query', basis: 'definitive', confirms: null } })],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local    1/3   812     ✗ failed',
        '  ↳ refused as a bad request by local: no-user-query (basis definitive: no node could have answered it)',
      ],
    },
    {
      name: 'a confirmed verdict names the node it agreed with',
      entries: [
        row({
          node: 'core-3',
          attempt: 2,
          outcome: 'failed',
          status: 500,
          requestError: { signature: 'invalid-message', basis: 'confirmed', confirms: 'local' },
        }),
      ],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      core-3   2/3   812     ✗ failed',
        '  ↳ refused as a bad request by core-3: invalid-message (basis confirmed: local had answered the same)',
      ],
    },
    {
      name: 'an unconfirmed verdict from the last candidate',
      entries: [row({ candidates: 1, outcome: 'failed', status: 500, requestError: { signature: 'context-length', basis: 'last-candidate', confirms: null } })],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local    1/1   812     ✗ failed',
        '  ↳ refused as a bad request by local: context-length (basis last-candidate: no candidate was left to confirm it)',
      ],
    },
    {
      name: 'a 4xx passed through on its status',
      entries: [row({ outcome: 'failed', status: 400, durationMs: 5, requestError: { signature: 'client-error', basis: 'status', confirms: null } })],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local    1/3   5       ✗ failed',
        '  ↳ refused as a bad request by local: client-error (basis status: passed back on its HTTP 400 status)',
      ],
    },
    {
      name: "an output fault reads as the node's, not the request's",
      entries: [row({ outcome: 'failed', status: 200, requestError: { signature: 'degenerate-output', basis: 'node', confirms: null } })],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local    1/3   812     ✗ failed',
        "  ↳ local answered with unusable output: degenerate-output (basis node) — the node's fault, not the request's",
      ],
    },
    {
      name: 'a pending row says how long it has waited when now is given',
      entries: [row({ attempt: null, outcome: 'pending', status: null, durationMs: null })],
      now: Date.parse(AT) + 42_500,
      lines: ['2026-09-21 20:09:06Z out  qwen3-coder:30b      -        -/3   -       … pending', '  ↳ still waiting on local after 42 s'],
    },
    {
      name: "a pending inbound row says this Hub is serving the sender's forward, not waiting on the sender",
      entries: [row({ direction: 'inbound', node: 'hub-a.tail0.ts.net', attempt: null, outcome: 'pending', status: null, durationMs: null })],
      now: Date.parse(AT) + 4_200,
      lines: [
        '2026-09-21 20:09:06Z in   qwen3-coder:30b      hub-a.tail0.ts.net -/3   -       … pending',
        "  ↳ serving hub-a.tail0.ts.net's forward on this Hub's engines, 4 s so far",
      ],
    },
    {
      name: 'a pending row without now gets no wait line',
      entries: [row({ attempt: null, outcome: 'pending', status: null, durationMs: null })],
      lines: ['2026-09-21 20:09:06Z out  qwen3-coder:30b      -        -/3   -       … pending'],
    },
    {
      name: 'a model pin that moved its target to the front',
      entries: [row({ node: 'core-2', pin: { scope: 'model', model: 'qwen3-coder:30b', target: 'core-2', applied: true } })],
      lines: ['2026-09-21 20:09:06Z out  qwen3-coder:30b      core-2   1/3   812     ✓ served', '  ↳ pinned to core-2 (model pin)'],
    },
    {
      name: 'a default pin whose target had no candidate, read before the failover lines',
      entries: [
        row({
          attempt: 2,
          failedOverFrom: ['core-3'],
          attempts: [{ node: 'core-3', backend: null, status: 503, reason: 'HTTP 503' }],
          pin: { scope: 'default', model: null, target: 'core-9', applied: false },
        }),
      ],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local    2/3   812     ✓ served',
        '  ↳ default pin to core-9 did not apply: no candidate there, so the ranked order stood',
        '  ↳ failed over from core-3: HTTP 503',
      ],
    },
    {
      name: 'a long peer name widens its column for every row',
      entries: [row({ node: 'core-14.tailxyz.ts.net' }), row()],
      lines: [
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      core-14.tailxyz.ts.net 1/3   812     ✓ served',
        '2026-09-21 20:09:06Z out  qwen3-coder:30b      local                  1/3   812     ✓ served',
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(body(c.entries, c.now), c.lines));
  }
});

describe('renderRoutingLog header and cursor line', () => {
  it('reads like the spec: rows, served, the failed breakdown, failovers', () => {
    const entries = [
      ...Array.from({ length: 7 }, () => row()),
      row({ failedOverFrom: ['local'], attempt: 2 }),
      row({ failedOverFrom: ['local'], attempt: 2 }),
      hangUp,
      row({ outcome: 'failed', status: 500, requestError: { signature: 'no-user-query', basis: 'definitive', confirms: null } }),
      row({ outcome: 'failed', status: 400, requestError: { signature: 'client-error', basis: 'status', confirms: null } }),
    ];
    assert.equal(headerLine(pageOf(entries)), '12 rows · 9 served · 3 failed (1 abandoned by the caller, 2 refused as bad requests) · 2 failed over');
  });

  it('counts pending rows and says when the page shows fewer rows than the Hub holds', () => {
    const page = pageOf([row({ outcome: 'pending', status: null })]);
    const held = { ...page, summary: { ...page.summary, recorded: 40, counts: { ...page.summary.counts, served: 39 } } };
    assert.equal(headerLine(held), 'showing 1 of 40 rows · 39 served · 0 failed · 1 pending');
  });

  it('reads one row in the singular, and an empty log as such', () => {
    assert.equal(headerLine(pageOf([row()])), '1 row · 1 served · 0 failed');
    assert.equal(renderRoutingLog(pageOf([])).split('\n')[0], '0 rows · 0 served · 0 failed');
  });

  it('ends with the command that reads on from the cursor the page carries', () => {
    const page = { ...pageOf([row()]), nextSince: '2026-11-30T12:00:05.123Z' };
    assert.equal(renderRoutingLog(page).split('\n').at(-1), 'rows placed or changed from here on: cihub pool log --since 2026-11-30T12:00:05.123Z');
  });
});

describe('routing-log lines for context caps, prompt ceilings and withholding', () => {
  const arrow = (entry: RoutingLogEntry) =>
    body([entry])
      .filter((l) => l.startsWith('  ↳ '))
      .map((l) => l.slice(4));
  const rows: readonly { name: string; entry: RoutingLogEntry; lines: string[] }[] = [
    {
      name: "a cap that moved a node, judged on the request's num_ctx",
      entry: row({ node: 'hub-b', contextCap: { numCtx: 65_536, source: 'request', excluded: [{ node: 'hub-a', maxNumCtx: 16_384 }], overridden: false } }),
      lines: ['moved hub-a (cap 16384) behind nodes whose context cap takes num_ctx 65536 (from the request)'],
    },
    {
      name: 'a cap judged on the estimate, then overridden on failover',
      entry: row({ node: 'hub-a', contextCap: { numCtx: 44_340, source: 'estimated', excluded: [{ node: 'hub-a', maxNumCtx: 16_384 }], overridden: true } }),
      lines: [
        'moved hub-a (cap 16384) behind nodes whose context cap takes ~44340 tokens (estimated from the prompt; the request named no num_ctx)',
        'placed anyway on hub-a over its context cap: nothing that could take the window answered',
      ],
    },
    {
      name: 'a cap record that moved nothing gets no line',
      entry: row({ contextCap: { numCtx: 100, source: 'estimated', excluded: [], overridden: false } }),
      lines: [],
    },
    {
      name: 'a ceiling that moved a node, and one placed anyway',
      entry: row({ node: 'hub-a', promptCeiling: { estimatedTokens: 10_240, excluded: [{ node: 'hub-a', maxPromptTokens: 1024 }], overridden: true } }),
      lines: [
        'moved hub-a (ceiling 1024) behind nodes under their prompt ceiling: this prompt is ~10240 tokens',
        'placed anyway on hub-a over its prompt ceiling: nothing under its ceiling answered',
      ],
    },
    {
      name: 'a ceiling record that moved nothing gets no line',
      entry: row({ promptCeiling: { estimatedTokens: 10, excluded: [], overridden: false } }),
      lines: [],
    },
    {
      name: 'a withheld engine says why the first node was skipped',
      entry: row({
        node: 'hub-b',
        withheld: {
          demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', until: '2026-09-29T10:01:00.000Z', reason: 'degenerate-output' }],
          overridden: false,
        },
      }),
      lines: ['moved local (ollama) behind every other candidate: withheld for degenerate-output until 2026-09-29 10:01:00Z'],
    },
    {
      name: 'a withheld engine of two of one kind is named by its id',
      entry: row({
        node: 'local',
        withheld: {
          demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama-1', until: '2026-09-29T10:01:00.000Z', reason: 'degenerate-output' }],
          overridden: false,
        },
      }),
      lines: ['moved local (ollama-1) behind every other candidate: withheld for degenerate-output until 2026-09-29 10:01:00Z'],
    },
  ];
  for (const r of rows) it(r.name, () => assert.deepEqual(arrow(r.entry), r.lines));
});
