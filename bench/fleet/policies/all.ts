/** The policies the benchmark compares, in the order tables list them. */
import { DEFAULT_SETTINGS } from '../../../src/config/settings-schema.js';
import type { PolicyFactory } from '../policy.js';
import { leastConnections, oracle, roundRobin, smartRouter } from './baselines.js';
import { hubPool } from './hub-pool.js';

/** The two settings the spec validates affinity and slots at (poolPrefixAffinityMaxInFlight 2, poolSlotAwareness 1). */
export const AFFINITY_AND_SLOTS = { poolPrefixAffinityMaxInFlight: 2, poolSlotAwareness: 1 } as const;

export const POLICIES: readonly { readonly key: string; readonly factory: PolicyFactory }[] = [
  { key: 'round-robin', factory: roundRobin },
  { key: 'least-connections', factory: leastConnections },
  { key: 'localai-smartrouter', factory: smartRouter },
  { key: 'queue-depth-only', factory: hubPool({ name: 'queue-depth-only', settings: DEFAULT_SETTINGS, steps: [] }) },
  { key: 'hub-pool-defaults', factory: hubPool({ name: 'hub-pool-defaults', settings: DEFAULT_SETTINGS }) },
  { key: 'hub-pool-affinity-slots', factory: hubPool({ name: 'hub-pool-affinity-slots', settings: AFFINITY_AND_SLOTS }) },
  { key: 'oracle', factory: oracle },
];
