/**
 * What the official clients make of the listings' peer-only entries. A peer publishes model
 * names only, so those entries carry zero and empty facts and, on the OpenAI side, owned_by
 * hub-pool; the entries must still be ones the openai and ollama npm clients read as models, and
 * a peer-only model must be one the ollama client can ask /api/show about.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import { request } from 'undici';
import { TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const A_OWN = 'a-own:8b';
const B_ONLY = 'b-only:8b';
const B_VLLM = 'org/b-vllm-only';

describe("the listings' peer-only entries, read by the official clients", () => {
  const pool = usePool({
    hubs: {
      a: { ollama: { models: [A_OWN] } },
      b: { ollama: { models: [B_ONLY] }, vllm: { models: [B_VLLM] } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 300 },
  });

  it('the OpenAI SDK lists a peer-only model as a model created at 0 and owned by hub-pool', { timeout: TEST_TIMEOUT_MS }, async () => {
    const client = new OpenAI({ baseURL: `${pool().a.pool}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
    const models: OpenAI.Models.Model[] = [];
    for await (const model of client.models.list()) models.push(model);
    const byId = new Map(models.map((m) => [m.id, m]));
    for (const peerOnly of [B_ONLY, B_VLLM]) assert.deepEqual(byId.get(peerOnly), { id: peerOnly, object: 'model', created: 0, owned_by: 'hub-pool' });
    assert.notEqual(byId.get(A_OWN)?.owned_by, 'hub-pool', "A's own model is listed as its engine lists it");
  });

  it('the ollama client lists a peer-only model with zero size, an empty digest and the zero time', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { models } = await new Ollama({ host: pool().a.pool }).list();
    const fromPeer = models.find((m) => m.name === B_ONLY);
    assert.ok(fromPeer, `${B_ONLY} is listed: ${models.map((m) => m.name).join(', ')}`);
    assert.equal(fromPeer.model, B_ONLY);
    assert.equal(fromPeer.size, 0);
    assert.equal(fromPeer.digest, '');
    assert.equal(new Date(fromPeer.modified_at).toISOString(), '0001-01-01T00:00:00.000Z');
    assert.equal(typeof fromPeer.details, 'object');
    assert.ok(!models.some((m) => m.name === B_VLLM), 'a model only a vLLM holds is no native model');
  });

  it("the ollama client's show of a peer-only model gets the holder's own description", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const shown = await new Ollama({ host: a.pool }).show({ model: B_ONLY });
    const direct = await request(`${b.engines.ollama!.url}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: B_ONLY }),
    });
    assert.deepEqual(shown, await direct.body.json());
  });
});
