/**
 * Kill-switch precedence (spec, "Kill switches: three levels, one precedence"), resolved here
 * and nowhere else. The master switch short-circuits both directions, though each still says
 * whether its own env flag is set (envLocked); every switch is opt-out.
 * The fifth level, a per-peer disable, lives on the peer row and is applied where peers are read.
 */
import { HubError } from '../errors.js';
import type { PoolSettings } from './settings-schema.js';

export type DisabledBy = 'env' | 'setting' | null;

/** The environment variables that lock the switches off, named where an operator is told of them. */
export const SWITCH_ENV_FLAGS = {
  master: 'HUB_POOL_USER_DISABLED',
  outbound: 'HUB_POOL_OUTBOUND_DISABLED',
  inbound: 'HUB_POOL_INBOUND_DISABLED',
} as const;

/**
 * The refusal of an operator's pool action (pairing, a PIN) while the master switch is off. It
 * names the switch, since the remedies differ: the env flag needs a restart without it, the
 * setting only `cihub pool enable`. A peer's request is refused without this detail.
 */
export function poolSwitchedOff(by: Exclude<DisabledBy, null>, consequence: string): HubError {
  const holding = by === 'env' ? `${SWITCH_ENV_FLAGS.master}=true in its environment` : 'its poolEnabled setting; cihub pool enable turns it on';
  return new HubError('HUB_ERR_POOL_DISABLED', `Hub Pool is switched off on this Hub (${holding}): ${consequence}`);
}

export interface Direction {
  readonly enabled: boolean;
  /** The highest switch holding the direction off: the master's while it is off, else the direction's own. */
  readonly disabledBy: DisabledBy;
  /**
   * Whether the direction's own env flag (HUB_POOL_OUTBOUND_DISABLED, HUB_POOL_INBOUND_DISABLED)
   * is set, whatever the master says. While the master has the direction off, disabledBy names
   * the master, so this is the only word that the direction stays off once the master is back
   * on; no setting can undo it (the dashboard locks the switch on it).
   */
  readonly envLocked: boolean;
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
    const off = (envLocked: boolean): Direction => ({ enabled: false, disabledBy: master, envLocked });
    return { enabled: false, disabledBy: master, outbound: off(env.outboundDisabled), inbound: off(env.inboundDisabled) };
  }
  const direction = (envOff: boolean, settingOn: boolean): Direction =>
    envOff
      ? { enabled: false, disabledBy: 'env', envLocked: true }
      : settingOn === false
        ? { enabled: false, disabledBy: 'setting', envLocked: false }
        : { enabled: true, disabledBy: null, envLocked: false };
  return {
    enabled: true,
    disabledBy: null,
    outbound: direction(env.outboundDisabled, settings.poolOutboundEnabled),
    inbound: direction(env.inboundDisabled, settings.poolInboundEnabled),
  };
}
