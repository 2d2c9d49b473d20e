import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inertSetting } from './inert-settings.js';
import { DEFAULT_SETTINGS, SETTING_RULES, type PoolSettings } from './settings-schema.js';

const withAffinity = (poolPrefixAffinityMaxInFlight: number, poolPrefixAffinityMargin: number): PoolSettings => ({
  ...DEFAULT_SETTINGS,
  poolPrefixAffinityMaxInFlight,
  poolPrefixAffinityMargin,
});

describe('inert settings', () => {
  it('marks a prefix-affinity margin inert while the limit is 0, naming the limit that makes it so', () => {
    assert.deepEqual(inertSetting('poolPrefixAffinityMargin', withAffinity(0, 3)), {
      reason: 'prefix-affinity-off',
      because: 'poolPrefixAffinityMaxInFlight',
      becauseValue: 0,
    });
  });

  it('leaves a margin of 0 unmarked: nothing is set that could be inert', () => {
    assert.equal(inertSetting('poolPrefixAffinityMargin', withAffinity(0, 0)), null);
  });

  it('leaves a margin unmarked once the limit is on, since it then widens it', () => {
    assert.equal(inertSetting('poolPrefixAffinityMargin', withAffinity(1, 3)), null);
  });

  it('marks no other setting, the limit itself included', () => {
    for (const key of Object.keys(SETTING_RULES) as (keyof PoolSettings)[]) {
      if (key !== 'poolPrefixAffinityMargin') assert.equal(inertSetting(key, withAffinity(0, 3)), null, key);
    }
  });
});
