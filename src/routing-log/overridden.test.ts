import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NULL_PLACEMENT_RECORDS, type RoutingLogEntry } from './entry.js';
import { withOverridden } from './overridden.js';

const base: RoutingLogEntry = {
  ...NULL_PLACEMENT_RECORDS,
  id: 'r',
  timestamp: 't',
  updatedAt: 't',
  direction: 'outbound',
  path: '/api/chat',
  model: 'm',
  node: 'hub-a',
  backend: 'ollama',
  candidates: 2,
  attempt: 2,
  failedOverFrom: ['hub-b'],
  attempts: [],
  outcome: 'served',
  status: 200,
  durationMs: 1,
  totalMs: 2,
  clientClosed: false,
  requestError: null,
  reason: null,
  localLoadRefused: null,
  stream: false,
  bodyBytes: 1,
  budgetMs: 300_000,
  traceId: null,
};
const ceiling = { estimatedTokens: 9000, excluded: [{ node: 'hub-a', maxPromptTokens: 1024 }], overridden: false };
const cap = { numCtx: 65_536, source: 'request' as const, excluded: [{ node: 'hub-a', maxNumCtx: 16_384 }], overridden: false };
const withheld = { demoted: [{ node: 'hub-a', backend: null, until: 'x', reason: 'degenerate-output' }], overridden: false };

describe('withOverridden', () => {
  const rows: readonly { name: string; row: RoutingLogEntry; expect: [boolean | null, boolean | null, boolean | null] }[] = [
    {
      name: 'placed on a node the ceiling, the cap and withholding moved back: all three overridden',
      row: { ...base, promptCeiling: ceiling, contextCap: cap, withheld },
      expect: [true, true, true],
    },
    {
      name: 'placed elsewhere: none overridden',
      row: { ...base, node: 'hub-b', promptCeiling: ceiling, contextCap: cap, withheld },
      expect: [false, false, false],
    },
    { name: 'no record: nothing to mark', row: base, expect: [null, null, null] },
    { name: 'an inbound row is never marked', row: { ...base, direction: 'inbound', promptCeiling: ceiling }, expect: [false, null, null] },
    { name: 'a row no node answered is not marked', row: { ...base, node: null, promptCeiling: ceiling }, expect: [false, null, null] },
    {
      name: 'a local engine withheld matches on its engine kind only',
      row: {
        ...base,
        node: 'local',
        backend: 'vllm',
        withheld: { ...withheld, demoted: [{ ...withheld.demoted[0]!, node: 'local', backend: 'ollama' as const }] },
      },
      expect: [null, null, false],
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const out = withOverridden(r.row);
      assert.deepEqual([out.promptCeiling?.overridden ?? null, out.contextCap?.overridden ?? null, out.withheld?.overridden ?? null], r.expect);
    });
  }
  it('returns the same row when nothing changes', () => assert.equal(withOverridden(base), base));
});
