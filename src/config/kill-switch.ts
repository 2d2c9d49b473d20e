/**
 * Kill-switch precedence (spec, "Kill switches: three levels, one precedence"), resolved here
 * and nowhere else. The master switch short-circuits both directions; every switch is opt-out.
 * The fifth level, a per-peer disable, lives on the peer row and is applied where peers are read.
 */
import type { PoolSettings } from './settings-schema.js';

export type DisabledBy = 'env' | 'setting' | null;

export interface Direction {
  readonly enabled: boolean;
  readonly disabledBy: DisabledBy;
}

export interface PoolDirections {
  /** False when the master switch (env or setting) is off. */
  readonly enabled: boolean;
  readonly disabledBy: DisabledBy;
  readonly outbound: Direction;
  readonly inbound: Direction;
}

export interface SwitchInputs {
  readonly userDisabled: boolean;
  readonly outboundDisabled: boolean;
  readonly inboundDisabled: boolean;
}

export function resolvePoolDirections(
  env: SwitchInputs,
  settings: Pick<PoolSettings, 'poolEnabled' | 'poolOutboundEnabled' | 'poolInboundEnabled'>,
): PoolDirections {
  const master: DisabledBy = env.userDisabled ? 'env' : settings.poolEnabled === false ? 'setting' : null;
  if (master !== null) {
    const off: Direction = { enabled: false, disabledBy: master };
    return { enabled: false, disabledBy: master, outbound: off, inbound: off };
  }
  const direction = (envOff: boolean, settingOn: boolean): Direction =>
    envOff ? { enabled: false, disabledBy: 'env' } : settingOn === false ? { enabled: false, disabledBy: 'setting' } : { enabled: true, disabledBy: null };
  return {
    enabled: true,
    disabledBy: null,
    outbound: direction(env.outboundDisabled, settings.poolOutboundEnabled),
    inbound: direction(env.inboundDisabled, settings.poolInboundEnabled),
  };
}
