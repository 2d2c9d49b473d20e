/**
 * openai.models.retrieve(id) against the pool: GET /v1/models/{id} answers from the same merged
 * listing GET /v1/models answers, so the two agree on every model, a peer's included, and a model
 * the listing does not name is an OpenAI-shaped 404 that names it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { request } from 'undici';
import { TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const A_OWN = 'a-own:8b';
const A_EMBED = 'nomic-embed-text';
const A_VLLM = 'Org/A-Local-4B';
const B_ONLY = 'b-only:8b';
const B_VLLM = 'org/b-vllm-only';
const B_EMBED = 'b-embed';

describe('openai.models.retrieve through the pool', () => {
  const pool = usePool({
    hubs: {
      a: { ollama: { models: [A_OWN, { name: A_EMBED, capabilities: ['embedding'] }] }, vllm: { models: [A_VLLM] } },
      b: { ollama: { models: [B_ONLY, { name: B_EMBED, capabilities: ['embedding'] }] }, vllm: { models: [B_VLLM] } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 300 },
  });
  const client = (): OpenAI => new OpenAI({ baseURL: `${pool().a.pool}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });

  it('answers every model the listing names with the very card the listing gives it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const listed: OpenAI.Models.Model[] = [];
    for await (const model of client().models.list()) listed.push(model);
    assert.ok(listed.length >= 5, `the listing names this Hub's and the peer's models: ${listed.map((m) => m.id).join(', ')}`);
    for (const card of listed) assert.deepEqual(await client().models.retrieve(card.id), card, `retrieve(${card.id})`);
  });

  it("answers a model only the peer holds with the listing's hub-pool card", { timeout: TEST_TIMEOUT_MS }, async () => {
    for (const peerOnly of [B_ONLY, B_VLLM])
      assert.deepEqual(await client().models.retrieve(peerOnly), { id: peerOnly, object: 'model', created: 0, owned_by: 'hub-pool' });
  });

  it('finds an id holding a slash whether the client escapes it or sends it as path segments', { timeout: TEST_TIMEOUT_MS }, async () => {
    const escaped = await client().models.retrieve(A_VLLM);
    assert.equal(escaped.id, A_VLLM);
    assert.equal(escaped.owned_by, 'vllm');
    const raw = await request(`${pool().a.pool}/v1/models/${A_VLLM}`);
    assert.equal(raw.statusCode, 200);
    assert.deepEqual(await raw.body.json(), escaped);
  });

  it(
    'finds a tagless name under the :latest an Ollama, here or on the peer, lists it as, as a chat naming it is placed',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      assert.equal((await client().models.retrieve(A_EMBED)).id, `${A_EMBED}:latest`);
      assert.equal((await client().models.retrieve(B_EMBED)).id, `${B_EMBED}:latest`, "a peer's Ollama lists it so too");
    },
  );

  it('answers a model nobody holds with a 404 in OpenAI error shape that names it', { timeout: TEST_TIMEOUT_MS }, async () => {
    await assert.rejects(client().models.retrieve('nobody-has:1b'), (err: unknown) => {
      assert.ok(err instanceof OpenAI.NotFoundError, `a NotFoundError, got ${String(err)}`);
      assert.match(err.message, /"nobody-has:1b"/);
      assert.match(err.headers?.get('content-type') ?? '', /^application\/json/);
      assert.equal((err.error as { type?: string }).type, 'invalid_request_error');
      return true;
    });
  });

  it('answers an id longer than any model id with a 404 that gives its length instead of echoing it', { timeout: TEST_TIMEOUT_MS }, async () => {
    await assert.rejects(client().models.retrieve('m'.repeat(5_000)), (err: unknown) => {
      assert.ok(err instanceof OpenAI.NotFoundError);
      assert.match(err.message, /5000 characters long/);
      assert.ok(err.message.length < 300, `a short message: ${err.message.length} characters`);
      return true;
    });
  });

  it('answers the listing path with a trailing slash and no id with a 404 saying no model was named', { timeout: TEST_TIMEOUT_MS }, async () => {
    const res = await request(`${pool().a.pool}/v1/models/`);
    assert.equal(res.statusCode, 404);
    const body = (await res.body.json()) as { error: { message: string; type: string } };
    assert.match(body.error.message, /names no model/);
    assert.equal(body.error.type, 'invalid_request_error');
  });
});
