/**
 * The failed count as `cihub pool log` and `cihub pool status` both print it. A failed row can
 * be the caller giving up, the request itself being bad, or a node answering with output
 * nobody can use; none of those is the pool failing to route, and an operator reading a bare
 * "4 failed" has no way to tell (the 2026-09-21 hang-ups were filed as a placement bug).
 */
import type { RoutingLogSummary } from '../../routing-log/entry.js';

export type FailedCounts = Pick<RoutingLogSummary['counts'], 'failed' | 'clientClosed' | 'requestErrors' | 'outputFaults'>;

/** describeFailedBreakdown: "3 failed (1 abandoned by the caller, 2 refused as bad requests)"; just "0 failed" when nothing is broken out. */
export function describeFailedBreakdown(counts: FailedCounts): string {
  const parts: string[] = [];
  if (counts.clientClosed > 0) parts.push(`${counts.clientClosed} abandoned by the caller`);
  if (counts.requestErrors > 0) {
    parts.push(counts.requestErrors === 1 ? '1 refused as a bad request' : `${counts.requestErrors} refused as bad requests`);
  }
  if (counts.outputFaults > 0) parts.push(`${counts.outputFaults} answered with unusable output`);
  const total = `${counts.failed} failed`;
  return parts.length === 0 ? total : `${total} (${parts.join(', ')})`;
}
