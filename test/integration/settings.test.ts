/**
 * The operator settings over GET/PATCH /api/inference/pool/settings on a real Hub process:
 * defaults on a fresh data dir, changes that apply with no restart and land in settings.json,
 * and refusals that change nothing at all (not even the bytes of settings.json). A settings.json
 * a newer cihub wrote keeps that build's settings through an older Hub's changes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { SPEC_DEFAULT_SETTINGS } from '../helpers/spec-defaults.js';
import { freshDataDir, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const SPEC_DEFAULTS = SPEC_DEFAULT_SETTINGS;

const SETTINGS_PATH = '/api/inference/pool/settings';

interface ErrorBody {
  error: { code: string; message: string };
}

describe('operator settings', () => {
  let hub: HubProcess;
  let settingsFile: string;

  before(async () => {
    hub = await startHubProcess();
    settingsFile = join(hub.dataDir, 'settings.json');
  });
  after(async () => {
    await hub.stop();
  });

  /** Sends a PATCH that must be refused, and proves settings.json and GET are exactly as before. */
  async function refusedPatch(body: unknown): Promise<string> {
    const bytesBefore = readFileSync(settingsFile);
    const { json: settingsBefore } = await hub.api('GET', SETTINGS_PATH);
    const res = await hub.api<ErrorBody>('PATCH', SETTINGS_PATH, body);
    assert.equal(res.status, 400, `expected 400 for ${JSON.stringify(body)}, got ${res.status}: ${JSON.stringify(res.json)}`);
    assert.equal(res.json.error.code, 'HUB_ERR_SETTINGS_INVALID');
    assert.ok(readFileSync(settingsFile).equals(bytesBefore), 'settings.json must be byte-identical after a refused PATCH');
    const { json: settingsAfter } = await hub.api('GET', SETTINGS_PATH);
    assert.deepEqual(settingsAfter, settingsBefore);
    return res.json.error.message;
  }

  it('answers every setting with its documented default on a fresh Hub, and writes the same to settings.json', async () => {
    const res = await hub.api('GET', SETTINGS_PATH);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, SPEC_DEFAULTS);
    assert.deepEqual(JSON.parse(readFileSync(settingsFile, 'utf8')), SPEC_DEFAULTS);
  });

  it('applies a PATCH at once, with no restart, and persists it to settings.json', async () => {
    const pidBefore = hub.child.pid;
    const res = await hub.api<Record<string, unknown>>('PATCH', SETTINGS_PATH, { poolProbeSnapshotTtlMs: 10_000, poolLocalAffinity: 3 });
    assert.equal(res.status, 200);
    assert.equal(res.json.poolProbeSnapshotTtlMs, 10_000);
    const { json } = await hub.api<Record<string, unknown>>('GET', SETTINGS_PATH);
    assert.deepEqual(json, { ...SPEC_DEFAULTS, poolProbeSnapshotTtlMs: 10_000, poolLocalAffinity: 3 });
    const onDisk = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    assert.equal(onDisk.poolProbeSnapshotTtlMs, 10_000);
    assert.equal(onDisk.poolLocalAffinity, 3);
    assert.equal(hub.child.pid, pidBefore);
    assert.equal(hub.child.exitCode, null, 'the Hub keeps running');
    // The status document reads the same settings object.
    const status = await hub.api<{ settings: Record<string, unknown> }>('GET', '/api/inference/pool/status');
    assert.equal(status.json.settings.poolProbeSnapshotTtlMs, 10_000);
    // Back to the defaults for the tests that follow.
    await hub.api('PATCH', SETTINGS_PATH, { poolProbeSnapshotTtlMs: 0, poolLocalAffinity: 1 });
  });

  it('accepts each range at its edges, and null for the prompt ceiling', async () => {
    const edges = {
      poolLocalAffinity: 20,
      poolHealthPollSeconds: 300,
      poolPressureWeight: 3,
      poolMaxPromptTokens: 1024,
      poolProbeSnapshotTtlMs: 300_000,
      poolPrefixAffinityMaxInFlight: 20,
      poolSlotAwareness: 1,
    };
    const res = await hub.api<Record<string, unknown>>('PATCH', SETTINGS_PATH, edges);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    for (const [key, value] of Object.entries(edges)) assert.equal(res.json[key], value, key);
    const cleared = await hub.api<Record<string, unknown>>('PATCH', SETTINGS_PATH, { poolMaxPromptTokens: null });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.json.poolMaxPromptTokens, null);
    const reset = await hub.api('PATCH', SETTINGS_PATH, {
      poolLocalAffinity: 1,
      poolHealthPollSeconds: 30,
      poolPressureWeight: 0,
      poolProbeSnapshotTtlMs: 0,
      poolPrefixAffinityMaxInFlight: 0,
      poolSlotAwareness: 0,
    });
    assert.deepEqual(reset.json, SPEC_DEFAULTS);
  });

  const outOfRange: ReadonlyArray<{ field: string; value: unknown; bounds: readonly string[] }> = [
    { field: 'poolLocalAffinity', value: 21, bounds: ['0', '20'] },
    { field: 'poolLocalAffinity', value: -1, bounds: ['0', '20'] },
    { field: 'poolHealthPollSeconds', value: 9, bounds: ['10', '300'] },
    { field: 'poolHealthPollSeconds', value: 301, bounds: ['10', '300'] },
    { field: 'poolPressureWeight', value: 3.5, bounds: ['0', '3'] },
    { field: 'poolMaxPromptTokens', value: 1023, bounds: ['1024', '1048576'] },
    { field: 'poolMaxPromptTokens', value: 1_048_577, bounds: ['1024', '1048576'] },
    { field: 'poolProbeSnapshotTtlMs', value: 300_001, bounds: ['0', '300000'] },
    { field: 'poolPrefixAffinityMaxInFlight', value: 21, bounds: ['0', '20'] },
    { field: 'poolSlotAwareness', value: 2, bounds: ['0', '1'] },
    { field: 'poolLocalAffinity', value: 1.5, bounds: ['0', '20'] },
  ];
  for (const c of outOfRange) {
    it(`refuses ${c.field}: ${c.value} with a 400 naming the field and its range, changing nothing`, async () => {
      const message = await refusedPatch({ [c.field]: c.value });
      assert.ok(message.includes(c.field), message);
      for (const bound of c.bounds) assert.ok(message.includes(bound), `message should state the bound ${bound}: ${message}`);
    });
  }

  it('refuses a value of the wrong type, saying what the field takes', async () => {
    const message = await refusedPatch({ poolEnabled: 'yes' });
    assert.match(message, /poolEnabled/);
    assert.match(message, /true or false/);
    const numeric = await refusedPatch({ poolHealthPollSeconds: '30' });
    assert.match(numeric, /poolHealthPollSeconds/);
    assert.match(numeric, /10/);
    assert.match(numeric, /300/);
  });

  it('refuses an unknown key by name', async () => {
    const message = await refusedPatch({ poolTurbo: true });
    assert.match(message, /poolTurbo/);
  });

  it('refuses poolPins: pins are written through their own route', async () => {
    const message = await refusedPatch({ poolPins: [{ scope: 'default', model: null, target: 'local' }] });
    assert.match(message, /poolPins/);
    assert.match(message, /pins/);
  });

  it('refuses the whole PATCH when one field among good ones is bad, applying none of it', async () => {
    const message = await refusedPatch({ poolLocalAffinity: 5, poolHealthPollSeconds: 5, poolProbeSnapshotTtlMs: 1000 });
    assert.match(message, /poolHealthPollSeconds/);
    assert.ok(!/poolLocalAffinity must/.test(message), 'a good field is not reported as a problem');
    const { json } = await hub.api<Record<string, unknown>>('GET', SETTINGS_PATH);
    assert.equal(json.poolLocalAffinity, SPEC_DEFAULTS.poolLocalAffinity);
    assert.equal(json.poolProbeSnapshotTtlMs, SPEC_DEFAULTS.poolProbeSnapshotTtlMs);
  });

  it('lists each refused field beside the message, in error.fields (docs/errors.md)', async () => {
    const res = await hub.api<{ error: { code: string; fields?: { field: string; message: string }[] } }>('PATCH', SETTINGS_PATH, {
      poolLocalAffinity: 50,
      poolTurbo: true,
    });
    assert.equal(res.status, 400);
    assert.deepEqual(
      res.json.error.fields?.map((f) => f.field),
      ['poolLocalAffinity', 'poolTurbo'],
    );
    assert.match(res.json.error.fields?.[0]?.message ?? '', /must be a whole number from 0 to 20; got 50/);
  });

  it('refuses a body that is not a settings object', async () => {
    await refusedPatch([{ poolEnabled: false }]);
    await refusedPatch({});
  });

  it('answers malformed JSON with a 400 and leaves settings.json alone', async () => {
    const bytesBefore = readFileSync(settingsFile);
    const res = await hub.api<ErrorBody>('PATCH', SETTINGS_PATH, '{"poolEnabled": false', { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    assert.match(res.json.error.message, /JSON/);
    assert.ok(readFileSync(settingsFile).equals(bytesBefore));
  });

  it('answers 401 without the operator key, on both GET and PATCH, and changes nothing', async () => {
    const bytesBefore = readFileSync(settingsFile);
    const get = await request(`${hub.url}${SETTINGS_PATH}`);
    assert.equal(get.statusCode, 401);
    assert.equal(((await get.body.json()) as ErrorBody).error.code, 'HUB_ERR_UNAUTHORIZED');
    for (const authorization of [undefined, 'Bearer not-the-operator-key']) {
      const patch = await request(`${hub.url}${SETTINGS_PATH}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ poolEnabled: false }),
      });
      assert.equal(patch.statusCode, 401);
      await patch.body.dump();
    }
    assert.ok(readFileSync(settingsFile).equals(bytesBefore));
    const { json } = await hub.api<Record<string, unknown>>('GET', SETTINGS_PATH);
    assert.equal(json.poolEnabled, true);
  });
});

describe('settings a newer cihub wrote, under an older Hub (a downgrade)', () => {
  let hub: HubProcess;
  let settingsFile: string;
  /** settings.json as a newer cihub writes it: settings this build has no rule for among its own. */
  const newer = `${JSON.stringify(
    {
      poolEnabled: true,
      poolLocalAffinity: 1,
      poolFutureRouting: { mode: 'latency', weights: [0.25, 2] },
      poolHealthPollSeconds: 30,
      poolFutureLimit: 12345.678,
    },
    null,
    2,
  )}\n`;
  /** One top-level key's text (its value's lines included) as it stands in the file, without a trailing comma. */
  const keyText = (text: string, key: string): string => {
    const start = text.indexOf(`\n  "${key}": `);
    assert.ok(start >= 0, `${key} is in settings.json:\n${text}`);
    const rest = text.slice(start + 1);
    return rest.slice(0, rest.search(/\n {2}"|\n\}/)).replace(/,$/, '');
  };

  before(async () => {
    const dataDir = freshDataDir();
    settingsFile = join(dataDir, 'settings.json');
    writeFileSync(settingsFile, newer, { mode: 0o600 });
    hub = await startHubProcess({ dataDir });
  });
  after(async () => {
    await hub.stop();
  });

  it('keeps them in settings.json, byte for byte, through `cihub pool set` and a PATCH', async () => {
    const set = await runCli(['pool', 'set', 'poolLocalAffinity', '3', '--yes'], { dataDir: hub.dataDir });
    assert.equal(set.code, 0, set.stderr);
    assert.equal((await hub.api('PATCH', SETTINGS_PATH, { poolHealthPollSeconds: 45 })).status, 200);
    const written = readFileSync(settingsFile, 'utf8');
    assert.equal(keyText(written, 'poolLocalAffinity'), '  "poolLocalAffinity": 3');
    assert.equal(keyText(written, 'poolHealthPollSeconds'), '  "poolHealthPollSeconds": 45');
    for (const key of ['poolFutureRouting', 'poolFutureLimit']) assert.equal(keyText(written, key), keyText(newer, key), key);
  });

  it("does not use them, and says at start-up that each may be a newer cihub's setting or a typo", async () => {
    const { json } = await hub.api<Record<string, unknown>>('GET', SETTINGS_PATH);
    assert.ok(!('poolFutureLimit' in json), 'GET /settings answers only the settings this Hub has');
    const status = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.equal(status.code, 0, status.stderr);
    assert.ok(
      status.stdout.includes(
        "!! at start-up: settings.json has keys this cihub has no setting for, left unused: poolFutureRouting, poolFutureLimit. Each may be a newer cihub's setting, kept in the file as it is when a change rewrites the file, or a typo to remove from the file",
      ),
      status.stdout,
    );
  });

  it('still refuses them in a PATCH from a client, writing nothing', async () => {
    const bytesBefore = readFileSync(settingsFile);
    const res = await hub.api<ErrorBody>('PATCH', SETTINGS_PATH, { poolFutureLimit: 2 });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'HUB_ERR_SETTINGS_INVALID');
    assert.ok(readFileSync(settingsFile).equals(bytesBefore));
  });
});
