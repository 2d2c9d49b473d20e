/**
 * Candidates: the engines that hold the requested model, are healthy by the snapshot, and
 * speak the request's dialect. Exclusion happens here and nowhere else; every later step
 * only reorders.
 */
import type { BackendView, ProxyDialect } from '../engines/types.js';
import { ADAPTERS } from '../engines/adapters.js';
import { backendHolds } from '../engines/model-name.js';
import type { Candidate } from './types.js';

export function localCandidates(
  backends: readonly BackendView[],
  model: string,
  dialect: ProxyDialect,
  inFlight: (backendId: string) => number,
): Candidate[] {
  return backends
    .filter((b) => b.healthy && ADAPTERS[b.kind].speaks(dialect) && backendHolds(b, model))
    .map((b) => ({
      id: `local/${b.backendId}`,
      node: 'local',
      backendId: b.backendId,
      engine: b.kind,
      url: b.url,
      queueDepth: inFlight(b.backendId),
    }));
}
