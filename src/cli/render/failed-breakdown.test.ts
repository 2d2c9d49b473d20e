import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeFailedBreakdown, type FailedCounts } from './failed-breakdown.js';

const none = { failed: 0, clientClosed: 0, requestErrors: 0, outputFaults: 0 };

describe('describeFailedBreakdown', () => {
  const cases: readonly { name: string; counts: FailedCounts; text: string }[] = [
    { name: 'nothing failed', counts: none, text: '0 failed' },
    { name: 'routing failures only', counts: { ...none, failed: 2 }, text: '2 failed' },
    { name: 'the 2026-09-21 hang-ups', counts: { ...none, failed: 4, clientClosed: 4 }, text: '4 failed (4 abandoned by the caller)' },
    {
      name: 'hang-ups beside bad requests',
      counts: { ...none, failed: 3, clientClosed: 1, requestErrors: 2 },
      text: '3 failed (1 abandoned by the caller, 2 refused as bad requests)',
    },
    { name: 'one bad request', counts: { ...none, failed: 1, requestErrors: 1 }, text: '1 failed (1 refused as a bad request)' },
    { name: 'an output fault', counts: { ...none, failed: 5, outputFaults: 1 }, text: '5 failed (1 answered with unusable output)' },
    {
      name: 'all three kinds, in a fixed order',
      counts: { failed: 9, clientClosed: 1, requestErrors: 3, outputFaults: 2 },
      text: '9 failed (1 abandoned by the caller, 3 refused as bad requests, 2 answered with unusable output)',
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(describeFailedBreakdown(c.counts), c.text));
  }
});
