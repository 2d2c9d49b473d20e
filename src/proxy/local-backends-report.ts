/**
 * localBackends: the container's-eye view of every local engine that a 502 carries (spec,
 * "When a node runs the model and the Hub cannot see the engine"), so an operator can tell
 * "nobody has the model" from "the Hub cannot reach the engine that has it". probedMsAgo
 * says how old each answer was, because placement may read a snapshot.
 */
import type { BackendView } from '../engines/types.js';

export interface LocalBackendReport {
  readonly backend: string;
  readonly kind: string;
  readonly url: string;
  readonly running: boolean;
  readonly healthy: boolean;
  readonly error: string | null;
  readonly probedMsAgo: number | null;
  readonly models: readonly string[];
}

export function localBackendsReport(views: readonly BackendView[]): LocalBackendReport[] {
  return views.map((v) => ({
    backend: v.backendId,
    kind: v.kind,
    url: v.url,
    running: v.running,
    healthy: v.healthy,
    error: v.error,
    probedMsAgo: v.probedMsAgo,
    models: v.models.map((m) => m.name),
  }));
}
