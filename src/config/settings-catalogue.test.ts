import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { settingsCatalogue, type SettingEntry } from './settings-catalogue.js';
import { DEFAULT_SETTINGS, SETTING_RULES, type PoolSettings } from './settings-schema.js';

type Locks = Parameters<typeof settingsCatalogue>[1];

/** No environment variable in force. */
const NO_LOCKS: Locks = { userDisabled: false, outboundDisabled: false, inboundDisabled: false, maxPromptTokens: null };

const entryOf = (entries: readonly SettingEntry[], key: keyof PoolSettings): SettingEntry => {
  const entry = entries.find((e) => e.key === key);
  assert.ok(entry, `no entry for ${key}`);
  return entry;
};

describe('settings catalogue', () => {
  it('lists every setting once, in the schema order', () => {
    assert.deepEqual(
      settingsCatalogue(DEFAULT_SETTINGS, NO_LOCKS).map((e) => e.key),
      Object.keys(SETTING_RULES),
    );
  });

  it('shows the value in force beside the default and the range in words', () => {
    const settings: PoolSettings = { ...DEFAULT_SETTINGS, poolLocalAffinity: 7 };
    assert.deepEqual(entryOf(settingsCatalogue(settings, NO_LOCKS), 'poolLocalAffinity'), {
      key: 'poolLocalAffinity',
      value: 7,
      default: 1,
      range: 'a whole number from 0 to 20',
      lockedBy: null,
      lockedValue: null,
      settable: true,
      inert: null,
    });
  });

  it('marks poolPins as not settable here (pin and unpin write it), and every other setting as settable', () => {
    for (const entry of settingsCatalogue(DEFAULT_SETTINGS, NO_LOCKS)) {
      assert.equal(entry.settable, entry.key !== 'poolPins', entry.key);
    }
  });

  it('shows no lock on any setting when no variable is in force', () => {
    for (const entry of settingsCatalogue(DEFAULT_SETTINGS, NO_LOCKS)) {
      assert.deepEqual([entry.lockedBy, entry.lockedValue], [null, null], entry.key);
    }
  });

  // Each variable the spec lets override a setting, alone: it locks its own setting and no other.
  const locks: readonly { locks: Partial<Locks>; key: keyof PoolSettings; lockedBy: string; lockedValue: unknown }[] = [
    { locks: { userDisabled: true }, key: 'poolEnabled', lockedBy: 'HUB_POOL_USER_DISABLED', lockedValue: false },
    { locks: { outboundDisabled: true }, key: 'poolOutboundEnabled', lockedBy: 'HUB_POOL_OUTBOUND_DISABLED', lockedValue: false },
    { locks: { inboundDisabled: true }, key: 'poolInboundEnabled', lockedBy: 'HUB_POOL_INBOUND_DISABLED', lockedValue: false },
    { locks: { maxPromptTokens: 4096 }, key: 'poolMaxPromptTokens', lockedBy: 'HUB_POOL_MAX_PROMPT_TOKENS', lockedValue: 4096 },
  ];
  for (const row of locks) {
    it(`${row.lockedBy} locks ${row.key} to ${JSON.stringify(row.lockedValue)} and nothing else`, () => {
      const entries = settingsCatalogue(DEFAULT_SETTINGS, { ...NO_LOCKS, ...row.locks });
      const locked = entries.filter((e) => e.lockedBy !== null);
      assert.deepEqual(
        locked.map((e) => [e.key, e.lockedBy, e.lockedValue]),
        [[row.key, row.lockedBy, row.lockedValue]],
      );
      // The lock is shown beside the stored value, which it does not change.
      assert.equal(entryOf(entries, row.key).value, DEFAULT_SETTINGS[row.key]);
    });
  }

  it('shows all four locks at once when every variable is in force', () => {
    const entries = settingsCatalogue(DEFAULT_SETTINGS, { userDisabled: true, outboundDisabled: true, inboundDisabled: true, maxPromptTokens: 1024 });
    assert.deepEqual(
      entries.filter((e) => e.lockedBy !== null).map((e) => e.key),
      ['poolEnabled', 'poolOutboundEnabled', 'poolInboundEnabled', 'poolMaxPromptTokens'],
    );
  });
});
