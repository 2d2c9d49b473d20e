/**
 * A row's attempts read by what they mean. attempts lists every candidate that failed; the
 * first failedOverFrom.length of them are the ones the walk moved on from, and on a walk that
 * ran out one more follows: the last candidate tried, whose failure is the row's reason. The
 * routing log, the metrics and `cihub pool log` all read failovers this one way, so a row's
 * failovers count the same everywhere.
 */
import type { Attempt, RoutingLogEntry } from './entry.js';

type Walked = Pick<RoutingLogEntry, 'failedOverFrom' | 'attempts'>;

/** The attempts the walk failed over from, in order. */
export function passedOverAttempts(row: Walked): readonly Attempt[] {
  return row.attempts.length === row.failedOverFrom.length ? row.attempts : row.attempts.slice(0, row.failedOverFrom.length);
}

/** The candidate a walk that ran out ended on; null when the row settled any other way. */
export function lastFailedAttempt(row: Walked): Attempt | null {
  return row.attempts[row.failedOverFrom.length] ?? null;
}
