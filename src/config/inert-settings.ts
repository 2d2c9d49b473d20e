/**
 * A setting whose stored value does nothing while another setting stands as it does. The spec
 * ("Prefix affinity") names one: poolPrefixAffinityMargin only widens a limit that is on, so at
 * poolPrefixAffinityMaxInFlight 0 a margin is stored and routes exactly as no margin (a fleet node
 * accepted a margin of 3 at limit 0 and routed as before), and the operator is told. Typed records
 * here; the words are the CLI's and the dashboard's.
 */
import type { PoolSettings } from './settings-schema.js';

export interface InertSetting {
  /** Why the value does nothing: prefix affinity is off, so there is no limit to widen. */
  readonly reason: 'prefix-affinity-off';
  /** The setting whose value makes this one inert. */
  readonly because: keyof PoolSettings;
  /** That setting's value in force. */
  readonly becauseValue: unknown;
}

/** Whether `key`'s value in force does nothing; null when it acts (or is at its inert default). Pure. */
export function inertSetting(key: keyof PoolSettings, settings: PoolSettings): InertSetting | null {
  if (key === 'poolPrefixAffinityMargin' && settings.poolPrefixAffinityMargin > 0 && settings.poolPrefixAffinityMaxInFlight === 0)
    return { reason: 'prefix-affinity-off', because: 'poolPrefixAffinityMaxInFlight', becauseValue: 0 };
  return null;
}
