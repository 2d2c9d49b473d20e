/** Reads a test takes from one Hub process: a request's settled routing-log row, this node's throughput bands. */
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, type HubProcess } from './hub-process.js';

/** The routing-log row with this id, once it has settled (a row settles as the body ends). */
export async function settledRow(hub: HubProcess, id: string): Promise<RoutingLogEntry> {
  return eventually(async () => {
    const { json } = await hub.api<RoutingLogPage>('GET', '/api/inference/pool/routing-log');
    return json.entries.find((e) => e.id === id && e.outcome !== 'pending');
  }, `row ${id} to settle`);
}

/** This node's throughput bands for `model`, as status shows them; empty when nothing was timed. */
export async function localBands(hub: HubProcess, model: string) {
  const { json } = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
  return json.localNode.throughput?.estimates.find((e) => e.model === model)?.bands ?? [];
}
