/**
 * Every operator setting from the CLI (issue 11, item 5), against a real Hub whose environment
 * overrides two of them: `cihub pool settings` shows each key's value, default, range and
 * override; `cihub pool set` changes one with the API's own validation and writes nothing when
 * it refuses.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SettingEntry } from '../../src/config/settings-catalogue.js';
import { SETTING_RULES } from '../../src/config/settings-schema.js';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

describe('cihub pool settings and cihub pool set', () => {
  let hub: HubProcess;
  const cli = (...args: string[]) => runCli(args, { dataDir: hub.dataDir });
  const settingsFile = () => (existsSync(join(hub.dataDir, 'settings.json')) ? readFileSync(join(hub.dataDir, 'settings.json'), 'utf8') : null);

  before(async () => {
    hub = await startHubProcess({ env: { HUB_POOL_OUTBOUND_DISABLED: 'true', HUB_POOL_MAX_PROMPT_TOKENS: '4096' } });
  });
  after(async () => {
    await hub?.stop();
  });

  it('lists every setting with value, default, range and the env var that overrides it', async () => {
    const run = await cli('pool', 'settings', '--json');
    assert.equal(run.code, 0, run.stderr);
    const entries = (JSON.parse(run.stdout) as { settings: SettingEntry[] }).settings;
    assert.deepEqual(entries.map((e) => e.key).sort(), Object.keys(SETTING_RULES).sort());
    const byKey = new Map(entries.map((e) => [e.key, e]));
    assert.deepEqual(byKey.get('poolLocalAffinity'), {
      key: 'poolLocalAffinity',
      value: 1,
      default: 1,
      range: 'a whole number from 0 to 20',
      lockedBy: null,
      lockedValue: null,
      settable: true,
      inert: null,
    });
    assert.equal(byKey.get('poolOutboundEnabled')?.lockedBy, 'HUB_POOL_OUTBOUND_DISABLED');
    assert.equal(byKey.get('poolOutboundEnabled')?.lockedValue, false);
    assert.equal(byKey.get('poolMaxPromptTokens')?.lockedBy, 'HUB_POOL_MAX_PROMPT_TOKENS');
    assert.equal(byKey.get('poolMaxPromptTokens')?.lockedValue, 4096);
    assert.equal(byKey.get('poolPins')?.settable, false);

    const table = await cli('pool', 'settings');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^poolHealthPollSeconds\s+30\s+30\s+a whole number from 10 to 300$/m);
    assert.match(table.stdout, /^poolOutboundEnabled\s+true\s+true\s+true or false\s+HUB_POOL_OUTBOUND_DISABLED forces false$/m);
  });

  it('sets a whole number, a decimal, a boolean and null, and says what changed', async () => {
    const affinity = await cli('pool', 'set', 'poolLocalAffinity', '3', '--yes');
    assert.equal(affinity.code, 0, affinity.stderr);
    assert.equal(affinity.stdout, 'poolLocalAffinity is now 3 (was 1; default 1).\n');
    const weight = await cli('pool', 'set', 'poolPressureWeight', '1.5', '--yes', '--json');
    assert.equal((JSON.parse(weight.stdout) as SettingEntry).value, 1.5);
    // A number as JSON writes it (1e1) and a bare fraction (.5) are numbers too, not text.
    const exponent = await cli('pool', 'set', 'poolHealthPollSeconds', '1e2', '--yes', '--json');
    assert.equal((JSON.parse(exponent.stdout) as SettingEntry).value, 100);
    const fraction = await cli('pool', 'set', 'poolPressureWeight', '.5', '--yes', '--json');
    assert.equal((JSON.parse(fraction.stdout) as SettingEntry).value, 0.5);
    assert.equal((await cli('pool', 'set', 'poolPressureWeight', '1.5', '--yes')).code, 0);
    const signed = await cli('pool', 'set', 'poolRequireSignedPeers', 'true', '--yes', '--json');
    assert.equal((JSON.parse(signed.stdout) as SettingEntry).value, true);
    const ceiling = await cli('pool', 'set', 'poolMaxPromptTokens', '8192', '--yes');
    assert.match(
      ceiling.stdout,
      /^poolMaxPromptTokens is now 8192 \(was null; default null\)\.\nHUB_POOL_MAX_PROMPT_TOKENS in the Hub's environment still forces 4096/,
    );
    const back = await cli('pool', 'set', 'poolMaxPromptTokens', 'null', '--yes');
    assert.equal(back.code, 0, back.stderr);
    const { json } = await hub.api<Record<string, unknown>>('GET', '/api/inference/pool/settings');
    assert.equal(json.poolLocalAffinity, 3);
    assert.equal(json.poolPressureWeight, 1.5);
    assert.equal(json.poolRequireSignedPeers, true);
    assert.equal(json.poolMaxPromptTokens, null);
  });

  // Exit 1: the Hub refused the value; exit 2: the command line named no setting `set` can change.
  const refusals: [string[], RegExp, number][] = [
    [['poolHealthPollSeconds', '5'], /^Nothing was changed: poolHealthPollSeconds must be a whole number from 10 to 300; got 5\.$/, 1],
    [['poolLocalAffinity', '2.5'], /must be a whole number from 0 to 20; got 2\.5/, 1],
    // Only decimal numbers are numbers, as in the API's JSON: JavaScript's Number() reads these as 16 and 3.
    [['poolLocalAffinity', '0x10'], /must be a whole number from 0 to 20; got "0x10"/, 1],
    [['poolLocalAffinity', ' 0b11 '], /must be a whole number from 0 to 20; got " 0b11 "/, 1],
    [['poolPressureWeight', '-1'], /must be a number from 0 to 3; got -1/, 1],
    [['poolEnabled', 'yes'], /poolEnabled must be true or false; got "yes"/, 1],
    [['poolShareContainerStats', 'null'], /must be true or false; got null/, 1],
    [['poolNoSuchKey', '1'], /^poolNoSuchKey is not a setting; nothing was changed/, 2],
    [['poolPins', '[]'], /set with `cihub pool pin` and `cihub pool unpin`/, 2],
  ];
  for (const [args, why, exitCode] of refusals) {
    it(`refuses set ${args.join(' ')} in one sentence, exit ${exitCode}, and writes nothing`, async () => {
      const before = settingsFile();
      const run = await cli('pool', 'set', ...args, '--yes');
      assert.equal(run.code, exitCode);
      assert.equal(run.stdout, '');
      assert.match(run.stderr.trim(), why);
      assert.equal(run.stderr.trim().split('\n').length, 1);
      assert.equal(settingsFile(), before);
    });
  }

  it('says a prefix-affinity margin does nothing while the limit is 0, on set and in the settings table', async () => {
    const inert =
      /^poolPrefixAffinityMargin is 3 but does nothing: prefix affinity is off while poolPrefixAffinityMaxInFlight is 0, and the margin only widens a limit that is on/m;
    const margin = await cli('pool', 'set', 'poolPrefixAffinityMargin', '3', '--yes');
    assert.equal(margin.code, 0, margin.stderr);
    assert.match(margin.stdout, inert);
    const asJson = await cli('pool', 'set', 'poolPrefixAffinityMargin', '3', '--yes', '--json');
    assert.deepEqual((JSON.parse(asJson.stdout) as SettingEntry).inert, {
      reason: 'prefix-affinity-off',
      because: 'poolPrefixAffinityMaxInFlight',
      becauseValue: 0,
    });
    assert.match((await cli('pool', 'settings')).stdout, inert);

    const on = await cli('pool', 'set', 'poolPrefixAffinityMaxInFlight', '2', '--yes');
    assert.equal(on.stdout, 'poolPrefixAffinityMaxInFlight is now 2 (was 0; default 0).\n');
    assert.doesNotMatch((await cli('pool', 'settings')).stdout, /does nothing/);
    const off = await cli('pool', 'set', 'poolPrefixAffinityMaxInFlight', '0', '--yes');
    assert.match(off.stdout, inert, 'turning the limit off says what it leaves inert');

    await cli('pool', 'set', 'poolPrefixAffinityMargin', '0', '--yes');
    assert.doesNotMatch((await cli('pool', 'settings')).stdout, /does nothing/);
  });

  it('says a slot statement does nothing on a node with no Ollama or llama.cpp engine, and stores it all the same', async () => {
    // This Hub runs with every engine off: only Ollama and llama.cpp candidates read the statement, here or on a peer.
    const stated = await cli('pool', 'slots', '4', '--yes');
    assert.equal(stated.code, 0, stated.stderr);
    assert.match(stated.stdout, /now states 4 Ollama slots/);
    assert.match(
      stated.stdout,
      /This node has no Ollama or llama\.cpp engine \(OLLAMA_URL and LLAMACPP_URL are off\), so nothing reads the statement until one is configured\.$/m,
    );
    assert.equal((await hub.api<{ inferenceOllamaSlots: unknown }>('GET', '/api/inference/pool/settings')).json.inferenceOllamaSlots, 4);
    const cleared = await cli('pool', 'slots', 'clear', '--yes');
    assert.doesNotMatch(cleared.stdout, /no Ollama or llama/, 'a withdrawn statement has nothing to be read');
  });

  it('asks before changing anything, and changes nothing without an answer', async () => {
    const before = settingsFile();
    const run = await cli('pool', 'set', 'poolLocalAffinity', '4');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /needs confirmation, so pass --yes/);
    assert.equal(settingsFile(), before);
  });
});
