/**
 * A failover's reason as a bounded label value. An attempt's `reason` is a short sentence
 * (a status, a deadline in ms, a transport code): fine in a log row, unbounded as a Prometheus
 * label, so metrics carry its kind and the routing log keeps the words.
 */
import type { Attempt } from '../routing-log/entry.js';

export type FailoverReasonKind =
  | 'header_deadline'
  | 'transport'
  | 'dropped_mid_body'
  | 'output_fault'
  | 'local_load_refused'
  | 'no_credentials'
  | 'http_408'
  | 'http_429'
  | 'http_5xx'
  | 'http_4xx';

export function failoverReasonKind(a: Pick<Attempt, 'status' | 'reason'>): FailoverReasonKind {
  if (a.reason.startsWith('No response headers within')) return 'header_deadline';
  if (a.reason.startsWith('output fault')) return 'output_fault';
  if (a.reason.startsWith("the engine's connection dropped mid-body")) return 'dropped_mid_body';
  if (a.reason.startsWith('local load refused')) return 'local_load_refused';
  if (a.reason.startsWith('no credentials')) return 'no_credentials';
  if (a.status === null) return 'transport';
  if (a.status === 408 || a.status === 429) return `http_${a.status}`;
  return a.status >= 500 ? 'http_5xx' : 'http_4xx';
}
