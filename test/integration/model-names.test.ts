/**
 * A model whose name is not ASCII (a CJK or accented name an operator gave an Ollama model) is
 * served like any other, from this Hub's engine and from a peer's. The name cannot go into a
 * header as it is (Node refuses characters above U+00FF), and before model-header.ts the forward
 * threw, so the peer read as unreachable and the app got a 502 (found by the attack suite).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { eventually, fqdn, pairHubs, POOL, reservePorts, startNamedHub, status, type HubProcess } from './pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');
const LOCAL = 'modèle-local:3b';
const REMOTE = 'qwen-中文:7b';

describe('model names outside ASCII', () => {
  let engineA: SimEngine;
  let engineB: SimEngine;
  let hubA: HubProcess;
  let hubB: HubProcess;
  let client: OpenAI;

  before(async () => {
    engineA = await startSimEngine({ dialect: 'ollama', models: [LOCAL], timeScale: 0.01 });
    engineB = await startSimEngine({ dialect: 'ollama', models: [REMOTE], timeScale: 0.01 });
    const ports = await reservePorts(['a', 'b']);
    [hubA, hubB] = await startTogether([
      startNamedHub({ name: A, port: ports.a, origins: { [B]: `http://127.0.0.1:${ports.b}` }, env: { OLLAMA_URL: engineA.url } }),
      startNamedHub({ name: B, port: ports.b, origins: { [A]: `http://127.0.0.1:${ports.a}` }, env: { OLLAMA_URL: engineB.url } }),
    ]);
    await pairHubs(hubA, A, hubB, B);
    await eventually(async () => (await status(hubA)).peers.some((p) => p.backends?.some((b) => b.models.includes(REMOTE))), `hub-a to hold hub-b's ${REMOTE}`);
    client = new OpenAI({ baseURL: `${hubA.url}${POOL}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
  });
  after(async () => {
    await Promise.all([hubA, hubB].filter(Boolean).map((h) => h.stop()));
    await Promise.all([engineA?.close(), engineB?.close()]);
  });

  for (const [where, model, servedBy] of [
    ["this Hub's engine", LOCAL, 'local'],
    ["a peer's engine", REMOTE, B],
  ] as const) {
    it(`serves ${JSON.stringify(model)} from ${where}, naming it percent-encoded in X-Hub-Pool-Model`, async () => {
      const { data, response } = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      assert.ok(data.choices[0]?.message.content, 'an answer came back');
      assert.equal(response.headers.get('x-hub-pool-served-by'), servedBy);
      assert.equal(decodeURIComponent(response.headers.get('x-hub-pool-model') ?? ''), model);
    });
  }

  it('streams from the peer too', async () => {
    const stream = await client.chat.completions.create({ model: REMOTE, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.ok(text.length > 0, 'tokens arrived');
  });
});
