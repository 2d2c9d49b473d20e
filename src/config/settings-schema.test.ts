import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS, describeRule, isPin, SETTING_RULES, settingsFromFile, validatePatch, valueFits, type PoolSettings } from './settings-schema.js';

type Key = keyof PoolSettings;

describe('operator settings defaults', () => {
  const expected: readonly { key: Key; value: unknown }[] = [
    { key: 'poolEnabled', value: true },
    { key: 'poolOutboundEnabled', value: true },
    { key: 'poolInboundEnabled', value: true },
    { key: 'poolLocalAffinity', value: 1 },
    { key: 'poolHealthPollSeconds', value: 30 },
    { key: 'poolPins', value: [] },
    { key: 'poolRequireSignedPeers', value: false },
    { key: 'poolShareContainerStats', value: true },
    { key: 'poolPressureWeight', value: 0 },
    { key: 'poolMaxPromptTokens', value: null },
    { key: 'poolProbeSnapshotTtlMs', value: 0 },
    { key: 'poolPrefixAffinityMaxInFlight', value: 0 },
    { key: 'poolPrefixAffinityMargin', value: 0 },
    { key: 'poolSlotAwareness', value: 0 },
    // The node's context cap (spec, "Context caps"; a user setting there, stored beside these here).
    { key: 'inferenceMaxNumCtx', value: null },
    { key: 'inferenceOllamaSlots', value: null },
    // Guide, "How Hubs find each other": LAN discovery is opt-in.
    { key: 'poolLanDiscovery', value: false },
  ];
  for (const row of expected) {
    it(`defaults ${row.key} to ${JSON.stringify(row.value)}`, () => {
      assert.deepEqual(DEFAULT_SETTINGS[row.key], row.value);
    });
  }

  it('knows exactly the settings listed above, no more and no fewer', () => {
    assert.deepEqual(Object.keys(SETTING_RULES).sort(), expected.map((r) => r.key).sort());
    assert.deepEqual(Object.keys(DEFAULT_SETTINGS).sort(), expected.map((r) => r.key).sort());
  });

  it('every default passes its own rule', () => {
    for (const key of Object.keys(SETTING_RULES) as Key[]) {
      assert.ok(valueFits(SETTING_RULES[key], DEFAULT_SETTINGS[key]), key);
    }
  });
});

interface RangeCase {
  readonly name: string;
  readonly key: Exclude<Key, 'poolPins'>;
  readonly value: unknown;
  readonly accepted: boolean;
}

/** Rows for one whole-number setting: both ends, one past each end, a fraction, a string, null. */
function wholeNumberRows(key: RangeCase['key'], min: number, max: number, nullable = false): RangeCase[] {
  return [
    { name: `${key} accepts its minimum ${min}`, key, value: min, accepted: true },
    { name: `${key} accepts its maximum ${max}`, key, value: max, accepted: true },
    { name: `${key} refuses ${min - 1}, just below the range`, key, value: min - 1, accepted: false },
    { name: `${key} refuses ${max + 1}, just above the range`, key, value: max + 1, accepted: false },
    { name: `${key} refuses a fraction inside the range`, key, value: min + 0.5, accepted: false },
    { name: `${key} refuses the number as a string`, key, value: String(min), accepted: false },
    { name: `${key} ${nullable ? 'accepts' : 'refuses'} null`, key, value: null, accepted: nullable },
  ];
}

function booleanRows(key: RangeCase['key']): RangeCase[] {
  return [
    { name: `${key} accepts true`, key, value: true, accepted: true },
    { name: `${key} accepts false`, key, value: false, accepted: true },
    { name: `${key} refuses the string "false"`, key, value: 'false', accepted: false },
    { name: `${key} refuses 0`, key, value: 0, accepted: false },
    { name: `${key} refuses null`, key, value: null, accepted: false },
  ];
}

describe('operator settings ranges (validatePatch, one field at a time)', () => {
  const cases: RangeCase[] = [
    ...booleanRows('poolEnabled'),
    ...booleanRows('poolOutboundEnabled'),
    ...booleanRows('poolInboundEnabled'),
    ...booleanRows('poolRequireSignedPeers'),
    ...booleanRows('poolShareContainerStats'),
    ...wholeNumberRows('poolLocalAffinity', 0, 20),
    ...wholeNumberRows('poolHealthPollSeconds', 10, 300),
    ...wholeNumberRows('poolMaxPromptTokens', 1024, 1_048_576, true),
    ...wholeNumberRows('poolProbeSnapshotTtlMs', 0, 300_000),
    ...wholeNumberRows('poolPrefixAffinityMaxInFlight', 0, 20),
    ...wholeNumberRows('poolPrefixAffinityMargin', 0, 20),
    ...wholeNumberRows('poolSlotAwareness', 0, 1),
    ...wholeNumberRows('inferenceMaxNumCtx', 1024, 10_000_000, true),
    ...wholeNumberRows('inferenceOllamaSlots', 1, 256, true),
    { name: 'poolPressureWeight accepts its minimum 0', key: 'poolPressureWeight', value: 0, accepted: true },
    { name: 'poolPressureWeight accepts its maximum 3', key: 'poolPressureWeight', value: 3, accepted: true },
    { name: 'poolPressureWeight accepts a fraction such as 1.5', key: 'poolPressureWeight', value: 1.5, accepted: true },
    { name: 'poolPressureWeight refuses -0.01, just below the range', key: 'poolPressureWeight', value: -0.01, accepted: false },
    { name: 'poolPressureWeight refuses 3.01, just above the range', key: 'poolPressureWeight', value: 3.01, accepted: false },
    { name: 'poolPressureWeight refuses Infinity', key: 'poolPressureWeight', value: Infinity, accepted: false },
    { name: 'poolPressureWeight refuses NaN', key: 'poolPressureWeight', value: Number.NaN, accepted: false },
    { name: 'poolPressureWeight refuses the number as a string', key: 'poolPressureWeight', value: '1', accepted: false },
    { name: 'poolPressureWeight refuses null', key: 'poolPressureWeight', value: null, accepted: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { patch, problems } = validatePatch({ [c.key]: c.value });
      if (c.accepted) {
        assert.deepEqual(problems, []);
        assert.deepEqual(patch, { [c.key]: c.value });
      } else {
        assert.equal(problems.length, 1);
        assert.equal(problems[0]?.field, c.key);
        assert.match(problems[0]?.message ?? '', new RegExp(`^${c.key} must be `));
        assert.deepEqual(patch, {});
      }
    });
  }
});

describe('validatePatch as a whole', () => {
  it('refuses a key that is not a setting, naming it', () => {
    const { patch, problems } = validatePatch({ poolLocalAfinity: 2 });
    assert.deepEqual(patch, {});
    assert.equal(problems.length, 1);
    assert.equal(problems[0]?.field, 'poolLocalAfinity');
    assert.match(problems[0]?.message ?? '', /poolLocalAfinity is not a setting/);
  });

  it('refuses a key named like a member of every object as no setting', () => {
    for (const field of ['constructor', 'toString', '__proto__']) {
      const { patch, problems } = validatePatch(JSON.parse(`{"${field}": 1}`));
      assert.deepEqual(patch, {});
      assert.match(problems[0]?.message ?? '', new RegExp(`^${field} is not a setting`), field);
    }
  });

  it('refuses poolPins, which has its own route, even with a valid pin list', () => {
    const { patch, problems } = validatePatch({ poolPins: [{ scope: 'default', model: null, target: 'local' }] });
    assert.deepEqual(patch, {});
    assert.equal(problems[0]?.field, 'poolPins');
    assert.match(problems[0]?.message ?? '', /\/api\/inference\/pool\/pins/);
  });

  it('refuses an empty object: it names nothing to change', () => {
    const { patch, problems } = validatePatch({});
    assert.deepEqual(patch, {});
    assert.deepEqual(
      problems.map((p) => p.field),
      ['(body)'],
    );
  });

  const notObjects: readonly { name: string; body: unknown }[] = [
    { name: 'null', body: null },
    { name: 'an array', body: [{ poolLocalAffinity: 2 }] },
    { name: 'a string', body: 'poolLocalAffinity=2' },
    { name: 'a number', body: 2 },
    { name: 'nothing at all', body: undefined },
  ];
  for (const c of notObjects) {
    it(`refuses a body that is ${c.name}`, () => {
      const { patch, problems } = validatePatch(c.body);
      assert.deepEqual(patch, {});
      assert.deepEqual(
        problems.map((p) => p.field),
        ['(body)'],
      );
    });
  }

  it('yields no patch at all when one field of several is bad, and reports only the bad one', () => {
    const { patch, problems } = validatePatch({ poolLocalAffinity: 3, poolHealthPollSeconds: 5, poolEnabled: false });
    assert.deepEqual(patch, {});
    assert.deepEqual(
      problems.map((p) => p.field),
      ['poolHealthPollSeconds'],
    );
  });

  it('reports every bad field, not just the first', () => {
    const { problems } = validatePatch({ poolLocalAffinity: 21, nope: 1, poolPins: [] });
    assert.deepEqual(problems.map((p) => p.field).sort(), ['nope', 'poolLocalAffinity', 'poolPins']);
  });

  it('passes several good fields through together', () => {
    const { patch, problems } = validatePatch({ poolLocalAffinity: 0, poolMaxPromptTokens: 16_000, poolInboundEnabled: false });
    assert.deepEqual(problems, []);
    assert.deepEqual(patch, { poolLocalAffinity: 0, poolMaxPromptTokens: 16_000, poolInboundEnabled: false });
  });
});

describe('isPin', () => {
  const cases: readonly { name: string; pin: unknown; valid: boolean }[] = [
    { name: 'a model pin with a model and a target', pin: { scope: 'model', model: 'llama3.2:3b', target: 'local' }, valid: true },
    { name: 'a default pin with model null', pin: { scope: 'default', model: null, target: 'core-2.tail.ts.net' }, valid: true },
    { name: 'a default pin with no model key', pin: { scope: 'default', target: 'local' }, valid: true },
    { name: 'a default pin that names a model', pin: { scope: 'default', model: 'llama3.2:3b', target: 'local' }, valid: false },
    { name: 'a model pin without a model', pin: { scope: 'model', model: null, target: 'local' }, valid: false },
    { name: 'a model pin with an empty model', pin: { scope: 'model', model: '', target: 'local' }, valid: false },
    { name: 'a pin with an empty target', pin: { scope: 'model', model: 'm', target: '' }, valid: false },
    { name: 'a pin with no target', pin: { scope: 'model', model: 'm' }, valid: false },
    { name: 'a pin with an unknown scope', pin: { scope: 'node', model: 'm', target: 'local' }, valid: false },
    { name: 'null', pin: null, valid: false },
    { name: 'nothing (undefined)', pin: undefined, valid: false },
    { name: 'a string naming a target', pin: 'local', valid: false },
  ];
  for (const c of cases) {
    it(`${c.valid ? 'accepts' : 'refuses'} ${c.name}`, () => assert.equal(isPin(c.pin), c.valid));
  }
});

describe('settingsFromFile', () => {
  it('gives every default, with nothing ignored, for an empty document', () => {
    const { settings, ignored } = settingsFromFile({});
    assert.deepEqual(settings, DEFAULT_SETTINGS);
    assert.deepEqual(ignored, []);
  });

  const notObjects: readonly { name: string; doc: unknown }[] = [
    { name: 'a missing file (undefined)', doc: undefined },
    { name: 'null', doc: null },
    { name: 'an array', doc: [1, 2] },
    { name: 'a string', doc: 'poolEnabled' },
  ];
  for (const c of notObjects) {
    it(`gives every default for ${c.name}`, () => {
      assert.deepEqual(settingsFromFile(c.doc).settings, DEFAULT_SETTINGS);
    });
  }

  it('falls back per key: a bad value takes its default while its neighbours keep theirs', () => {
    const pins = [{ scope: 'model', model: 'qwen3:8b', target: 'core-2.tail.ts.net' }];
    const { settings, ignored } = settingsFromFile({
      poolLocalAffinity: 4,
      poolHealthPollSeconds: 9,
      poolEnabled: 'no',
      poolMaxPromptTokens: 16_000,
      poolPins: pins,
      somethingElse: true,
    });
    assert.equal(settings.poolLocalAffinity, 4);
    assert.equal(settings.poolHealthPollSeconds, DEFAULT_SETTINGS.poolHealthPollSeconds);
    assert.equal(settings.poolEnabled, true);
    assert.equal(settings.poolMaxPromptTokens, 16_000);
    assert.deepEqual(settings.poolPins, pins);
    assert.deepEqual(ignored.map((i) => i.key).sort(), ['poolEnabled', 'poolHealthPollSeconds']);
  });

  it('hands back a key with no rule apart from the bad values, with its value as read, in the order the file had them', () => {
    const { settings, ignored, unknown } = settingsFromFile({ poolFutureKnob: { mode: 'x', n: [1, 2] }, poolLocalAffinity: 4, poolHealthPollSecs: 20 });
    assert.deepEqual(unknown, [
      { key: 'poolFutureKnob', value: { mode: 'x', n: [1, 2] } },
      { key: 'poolHealthPollSecs', value: 20 },
    ]);
    assert.deepEqual(ignored, []);
    assert.equal(settings.poolLocalAffinity, 4);
    assert.ok(!Object.hasOwn(settings, 'poolFutureKnob'), 'not used');
  });

  it('reads pins from the file (only PATCH refuses them) one by one, naming each bad one by its place', () => {
    const good = { scope: 'default', model: null, target: 'local' };
    const { settings, ignored } = settingsFromFile({ poolPins: [{ scope: 'model', target: 'local' }, good, 'local'] });
    assert.deepEqual(settings.poolPins, [good]);
    assert.deepEqual(
      ignored.map((i) => i.key),
      ['poolPins[0]', 'poolPins[2]'],
    );
  });

  it('ignores a pin list that is not a list, whole', () => {
    const { settings, ignored } = settingsFromFile({ poolPins: { scope: 'default', target: 'local' } });
    assert.deepEqual(settings.poolPins, []);
    assert.deepEqual(
      ignored.map((i) => i.key),
      ['poolPins'],
    );
  });

  it('hands back a deeply frozen object', () => {
    const { settings } = settingsFromFile({ poolPins: [{ scope: 'default', model: null, target: 'local' }] });
    assert.ok(Object.isFrozen(settings));
    assert.ok(Object.isFrozen(settings.poolPins));
    assert.ok(Object.isFrozen(settings.poolPins[0]));
  });
});

describe('each rule in words (the range the catalogue shows and a refusal quotes)', () => {
  const rows: readonly { key: Key; words: string }[] = [
    { key: 'poolEnabled', words: 'true or false' },
    { key: 'poolLocalAffinity', words: 'a whole number from 0 to 20' },
    { key: 'inferenceOllamaSlots', words: 'a whole number from 1 to 256, or null' },
    { key: 'poolPressureWeight', words: 'a number from 0 to 3' },
    { key: 'poolPins', words: 'a list of pins (written through /api/inference/pool/pins)' },
  ];
  for (const r of rows) {
    it(`${r.key}: ${r.words}`, () => assert.equal(describeRule(SETTING_RULES[r.key]), r.words));
  }
});

describe('what a refusal says', () => {
  it('quotes the rule and the value it got', () => {
    assert.deepEqual(validatePatch({ poolPressureWeight: '1' }).problems, [
      { field: 'poolPressureWeight', message: 'poolPressureWeight must be a number from 0 to 3; got "1"' },
    ]);
  });

  it('lists every known setting after a name that is not one', () => {
    const [problem] = validatePatch({ poolLocalAfinity: 2 }).problems;
    assert.equal(problem?.message, `poolLocalAfinity is not a setting (known: ${Object.keys(SETTING_RULES).join(', ')})`);
    assert.match(problem?.message ?? '', /\(known: poolEnabled, poolOutboundEnabled, /);
  });

  it('quotes a number JSON reads as Infinity as Infinity, not as the null its rule allows', () => {
    assert.equal(
      validatePatch(JSON.parse('{"poolMaxPromptTokens": 1e400}')).problems[0]?.message,
      'poolMaxPromptTokens must be a whole number from 1024 to 1048576, or null; got Infinity',
    );
  });

  it('quotes a long value and a long name cut short, so the refusal stays one short line', () => {
    const { problems } = validatePatch({ poolLocalAffinity: 'x'.repeat(200_000), ['k'.repeat(200_000)]: 1 });
    assert.deepEqual(
      problems.map((p) => p.field.length),
      ['poolLocalAffinity'.length, 40],
    );
    assert.ok(
      problems.every((p) => p.message.length < 1_000),
      problems.map((p) => p.message.length).join(', '),
    );
    assert.match(problems[0]!.message, /got "x{79}\.\.\.$/);
  });

  it('sends poolPins to the pins route', () => {
    assert.equal(validatePatch({ poolPins: [] }).problems[0]?.message, 'poolPins is written through POST/DELETE /api/inference/pool/pins, not PATCH');
  });

  it('tells a body that is not an object from one that names nothing', () => {
    assert.deepEqual(validatePatch([]).problems, [{ field: '(body)', message: 'the body must be a JSON object of settings' }]);
    assert.deepEqual(validatePatch({}).problems, [{ field: '(body)', message: 'the body names no setting to change' }]);
  });
});
