/**
 * This node's slot count and context cap over the two routes the spec names beside the settings
 * PATCH (PATCH /api/user-settings, PATCH /api/inference/preferences), on a real Hub: each writes
 * the stored setting that status and placement read, null clears, and a refusal names the field
 * as the caller sent it and changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

interface ErrorBody {
  error: { code: string; message: string; fields?: readonly { field: string; message: string }[] };
}
interface StatusBody {
  localNode: { maxNumCtx: number | null; ollamaSlots: number | null };
  settings: { inferenceMaxNumCtx: number | null; inferenceOllamaSlots: number | null };
}

describe('PATCH /api/user-settings and PATCH /api/inference/preferences', () => {
  let hub: HubProcess;
  const localNode = async () => (await hub.api<StatusBody>('GET', '/api/inference/pool/status')).json.localNode;
  const settingsBytes = () => readFileSync(join(hub.dataDir, 'settings.json'));

  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub?.stop();
  });

  it('sets the context cap from {"inferenceMaxNumCtx": N} on /api/user-settings, where status reads it', async () => {
    const res = await hub.api('PATCH', '/api/user-settings', { inferenceMaxNumCtx: 16_384 });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(res.json, { inferenceOllamaSlots: null, inferenceMaxNumCtx: 16_384 });
    assert.equal((await localNode()).maxNumCtx, 16_384);
    const settings = await hub.api<StatusBody['settings']>('GET', '/api/inference/pool/settings');
    assert.equal(settings.json.inferenceMaxNumCtx, 16_384);
  });

  it('sets and clears the cap through maxNumCtx on /api/inference/preferences', async () => {
    const set = await hub.api('PATCH', '/api/inference/preferences', { maxNumCtx: 32_768, ollamaSlots: 4 });
    assert.equal(set.status, 200, JSON.stringify(set.json));
    assert.deepEqual(set.json, { ollamaSlots: 4, maxNumCtx: 32_768 });
    const stated = await localNode();
    assert.equal(stated.maxNumCtx, 32_768);
    assert.equal(stated.ollamaSlots, 4);
    const cleared = await hub.api('PATCH', '/api/inference/preferences', { maxNumCtx: null });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.json));
    assert.deepEqual(cleared.json, { ollamaSlots: 4, maxNumCtx: null });
    const node = await localNode();
    assert.equal(node.maxNumCtx, null);
    assert.equal(node.ollamaSlots, 4, 'a body naming only the cap leaves the slot count alone');
    await hub.api('PATCH', '/api/inference/preferences', { ollamaSlots: null });
  });

  const refusals: [string, unknown, RegExp][] = [
    ['/api/inference/preferences', { maxNumCtx: 512 }, /^maxNumCtx must be a whole number from 1024 to 10000000, or null; got 512$/],
    ['/api/user-settings', { inferenceMaxNumCtx: 'big' }, /^inferenceMaxNumCtx must be a whole number from 1024 to 10000000; got "big"$/],
    [
      '/api/user-settings',
      { inferenceOllamaSlots: null },
      /^inferenceOllamaSlots must be a whole number from 1 to 256; got null \(to clear it, send PATCH \/api\/inference\/preferences with ollamaSlots: null\)$/,
    ],
    ['/api/inference/preferences', { ollamaSlots: 0 }, /^ollamaSlots must be a whole number from 1 to 256, or null; got 0$/],
    ['/api/inference/preferences', {}, /^the body names nothing to change: send ollamaSlots or maxNumCtx$/],
    ['/api/user-settings', {}, /^the body names nothing to change: send inferenceOllamaSlots or inferenceMaxNumCtx$/],
    ['/api/inference/preferences', { inferenceMaxNumCtx: 16_384 }, /^inferenceMaxNumCtx is not taken here \(this route takes ollamaSlots or maxNumCtx\)$/],
    ['/api/inference/preferences', [1], /^the body must be a JSON object naming ollamaSlots or maxNumCtx$/],
  ];
  for (const [route, body, message] of refusals) {
    it(`refuses ${JSON.stringify(body)} on ${route} in the route's own words, changing nothing`, async () => {
      const before = settingsBytes();
      const res = await hub.api<ErrorBody>('PATCH', route, body);
      assert.equal(res.status, 400, JSON.stringify(res.json));
      assert.equal(res.json.error.code, 'HUB_ERR_SETTINGS_INVALID');
      assert.match(res.json.error.message, message);
      assert.doesNotMatch(res.json.error.message, /undefined/);
      assert.ok((res.json.error.fields?.length ?? 0) > 0, 'every refusal lists what it refused, a body that is no object as (body)');
      assert.ok(settingsBytes().equals(before), 'settings.json is byte-identical after a refusal');
    });
  }

  it('applies none of a body when one of its fields is refused', async () => {
    const res = await hub.api<ErrorBody>('PATCH', '/api/inference/preferences', { ollamaSlots: 2, maxNumCtx: 1 });
    assert.equal(res.status, 400);
    assert.equal((await localNode()).ollamaSlots, null);
  });
});
