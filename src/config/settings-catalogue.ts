/**
 * Every operator setting as the operator needs to see it before changing it: its value, its
 * default, its range, and whether an environment variable overrides it (issue 11, item 5).
 * Each entry also says when its value does nothing because of another setting (inert-settings.ts).
 * The env overrides are the ones the spec names: the three kill switches, which can only
 * force a direction off, and HUB_POOL_MAX_PROMPT_TOKENS, which replaces the prompt ceiling.
 */
import type { HubEnv } from './env.js';
import { SWITCH_ENV_FLAGS } from './kill-switch.js';
import { inertSetting, type InertSetting } from './inert-settings.js';
import { DEFAULT_SETTINGS, describeRule, NOT_PATCHABLE, SETTING_RULES, type PoolSettings } from './settings-schema.js';

export interface SettingEntry {
  readonly key: keyof PoolSettings;
  readonly value: unknown;
  readonly default: unknown;
  /** The rule in words, as the PATCH refusal says it. */
  readonly range: string;
  /** The environment variable in force over this setting; null when none is. */
  readonly lockedBy: string | null;
  /** What the variable imposes while it is in force; null when lockedBy is null. */
  readonly lockedValue: unknown;
  /** false for poolPins, which `cihub pool pin` and `unpin` write. */
  readonly settable: boolean;
  /** Why the value in force does nothing while another setting stands as it does; null when it acts. */
  readonly inert: InertSetting | null;
}

type EnvLocks = Pick<HubEnv, 'userDisabled' | 'outboundDisabled' | 'inboundDisabled' | 'maxPromptTokens'>;

function lockOf(key: keyof PoolSettings, env: EnvLocks): { lockedBy: string; lockedValue: unknown } | null {
  switch (key) {
    case 'poolEnabled':
      return env.userDisabled ? { lockedBy: SWITCH_ENV_FLAGS.master, lockedValue: false } : null;
    case 'poolOutboundEnabled':
      return env.outboundDisabled ? { lockedBy: SWITCH_ENV_FLAGS.outbound, lockedValue: false } : null;
    case 'poolInboundEnabled':
      return env.inboundDisabled ? { lockedBy: SWITCH_ENV_FLAGS.inbound, lockedValue: false } : null;
    case 'poolMaxPromptTokens':
      return env.maxPromptTokens !== null ? { lockedBy: 'HUB_POOL_MAX_PROMPT_TOKENS', lockedValue: env.maxPromptTokens } : null;
    default:
      return null;
  }
}

export function settingsCatalogue(settings: PoolSettings, env: EnvLocks): SettingEntry[] {
  return (Object.keys(SETTING_RULES) as (keyof PoolSettings)[]).map((key) => {
    const lock = lockOf(key, env);
    return {
      key,
      value: settings[key],
      default: DEFAULT_SETTINGS[key],
      range: describeRule(SETTING_RULES[key]),
      lockedBy: lock?.lockedBy ?? null,
      lockedValue: lock?.lockedValue ?? null,
      settable: !NOT_PATCHABLE.has(key),
      inert: inertSetting(key, settings),
    };
  });
}
