/**
 * The counts in the routing log's summary, over the rows the ring holds now. Computed when a
 * page is asked for rather than kept up to date on every change: a page walks the rows anyway,
 * and the request path then pays nothing for them.
 */
import type { RoutingLogEntry, RoutingLogSummary } from './entry.js';

export type RoutingLogCounts = RoutingLogSummary['counts'];

/** countRows tallies outcomes, and inside failed the three kinds an operator tells apart from a routing failure. */
export function countRows(rows: Iterable<RoutingLogEntry>): RoutingLogCounts {
  let served = 0;
  let failed = 0;
  let pending = 0;
  let failedOver = 0;
  let clientClosed = 0;
  let requestErrors = 0;
  let outputFaults = 0;
  for (const row of rows) {
    switch (row.outcome) {
      case 'pending':
        pending++;
        break;
      case 'served':
        served++;
        if (row.failedOverFrom.length > 0) failedOver++;
        break;
      case 'failed':
        failed++;
        if (row.clientClosed) clientClosed++;
        // basis 'node' is the node's fault (output nobody can use), not the request's.
        if (row.requestError?.basis === 'node') outputFaults++;
        else if (row.requestError) requestErrors++;
        break;
    }
  }
  return { served, failed, pending, failedOver, clientClosed, requestErrors, outputFaults };
}
