/**
 * A pin whose peer is unpaired (spec, "Manual routing pins"): unpairing leaves the pin where it
 * is, status shows it as no longer available, and requests route exactly as they would with no
 * pin. Nothing exercised the pin across an unpair; the step's own tests cover a target with no
 * candidate, not the wiring that must neither drop the pin nor fail on it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/hub-process.js';
import { chat, header, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const M = 'shared:8b';

describe('a model pin at a peer that is then unpaired', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: [M] } }, b: { ollama: { models: [M] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 300 },
  });

  it('stays stored, reads as unavailable in status, and routes as if unpinned', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const pinned = await a.api('POST', '/api/inference/pool/pins', { scope: 'model', model: M, target: b.name });
    assert.equal(pinned.status, 200, JSON.stringify(pinned.json));
    const before = await chat(a, M);
    assert.equal(header(before, 'x-hub-pool-served-by'), b.name, 'the pin moves hub-b ahead of the local head start');

    const unpaired = await runCli(['pool', 'unpair', b.name, '--yes'], { dataDir: a.dataDir });
    assert.equal(unpaired.code, 0, unpaired.stderr);

    const status = await a.status();
    assert.deepEqual(
      status.pins.map((p) => ({ scope: p.scope, model: p.model, targetNode: p.targetNode, targetAvailable: p.targetAvailable })),
      [{ scope: 'model', model: M, targetNode: b.name, targetAvailable: false }],
    );
    const after = await chat(a, M);
    assert.equal(after.status, 200, after.text);
    assert.equal(header(after, 'x-hub-pool-served-by'), 'local');
    const row = await a.settledRow(header(after, 'x-hub-pool-request-id')!);
    assert.deepEqual(row.pin, { scope: 'model', model: M, target: b.name, applied: false });
  });
});
