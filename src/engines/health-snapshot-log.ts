/**
 * What the Hub's log says about a local engine's health, decided from one probe answer and the
 * one before it. An engine that is down fails every probe (at TTL 0, one per request), so only
 * the change is worth a warning: the first failure, or a failure of the other kind (nothing at
 * the address, or something there that is not a usable engine). The repeats go to debug, and the
 * first good answer after failures is one info line with how many there were. Reasons come from
 * the adapters and never carry an engine's body.
 */
import type { EngineEndpoint } from '../config/env.js';
import type { ProbeAnswer } from './types.js';

export interface EngineHealthLine {
  readonly level: 'warn' | 'debug' | 'info';
  readonly fields: Readonly<Record<string, string | number>>;
  readonly msg: string;
}

/**
 * The line to log for `next`, given the answer before it (null: never probed) and how many
 * probes in a row had failed before it; null when there is nothing to say (healthy, as before).
 */
export function engineHealthLine(endpoint: EngineEndpoint, previous: ProbeAnswer | null, next: ProbeAnswer, failedBefore: number): EngineHealthLine | null {
  const { id: engine, kind, url } = endpoint;
  const wasFailing = previous !== null && !previous.healthy;
  if (next.healthy) return wasFailing ? { level: 'info', fields: { engine, kind, url, failures: failedBefore }, msg: 'engine reachable' } : null;
  const reason = next.error ?? 'no reason given';
  const news = !wasFailing || previous.running !== next.running;
  return {
    level: news ? 'warn' : 'debug',
    fields: { engine, kind, url, failures: failedBefore + 1, reason },
    msg: `health probe of ${kind} engine at ${url} failed: ${reason}`,
  };
}
