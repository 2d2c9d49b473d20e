/**
 * A failover's reason as a bounded label value. An attempt's `reason` is a short sentence
 * (a status, a deadline in ms, a transport code): fine in a log row, unbounded as a Prometheus
 * label, so metrics carry its kind and the routing log keeps the words.
 *
 * The words come from describeFailure (proxy/failover-policy.ts); failover-reason.test.ts runs
 * every kind of failure it can describe through here, so a new one cannot land in the wrong kind.
 */
import type { Attempt } from '../routing-log/entry.js';

/** Every value the label takes; docs/api.md lists them, and a test holds both to what the walk can record. */
export const FAILOVER_REASON_KINDS = [
  'header_deadline',
  'transport',
  'dropped_mid_body',
  'body_stalled',
  'output_fault',
  'no_credentials',
  'http_408',
  'http_429',
  'http_5xx',
  'http_4xx',
  'other',
] as const;

export type FailoverReasonKind = (typeof FAILOVER_REASON_KINDS)[number];

export function failoverReasonKind(a: Pick<Attempt, 'status' | 'reason'>): FailoverReasonKind {
  if (a.reason.startsWith('No response headers within')) return 'header_deadline';
  if (a.reason.startsWith('output fault')) return 'output_fault';
  if (a.reason.startsWith("the engine's connection dropped mid-body")) return 'dropped_mid_body';
  if (a.reason.startsWith('the engine stopped sending its body')) return 'body_stalled';
  if (a.reason.startsWith('no credentials')) return 'no_credentials';
  if (a.status === null) return 'transport';
  if (a.status === 408 || a.status === 429) return `http_${a.status}`;
  if (a.status >= 500) return 'http_5xx';
  if (a.status >= 400) return 'http_4xx';
  // A status below 400 with words none of the above knows: said so, rather than passed off as a refusal.
  return 'other';
}
