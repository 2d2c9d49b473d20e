import assert from 'node:assert/strict';
import { scaled } from '../../test/helpers/time-scale.js';
import { describe, it } from 'node:test';
import { startSimEngine, type SimEngine } from './engine.js';
import { getReply, postJson } from './test-helpers.js';

/** A wedged exchange fails the suite instead of stalling a shared test run. */
const HTTP_SUITE_TIMEOUT_MS = scaled(60_000); // stretched by HUB_TEST_TIME_SCALE on a loaded machine

async function withOllama(run: (e: SimEngine) => Promise<void>): Promise<void> {
  const engine = await startSimEngine({ dialect: 'ollama', models: ['m1:8b'], timeScale: 0.001 });
  try {
    await run(engine);
  } finally {
    await engine.close();
  }
}

async function tagNames(engine: SimEngine): Promise<string[]> {
  const reply = await getReply(`${engine.url}/api/tags`);
  return (JSON.parse(reply.text) as { models: { name: string }[] }).models.map((m) => m.name);
}

async function deleteModel(engine: SimEngine, path: string): Promise<number> {
  return (await fetch(`${engine.url}/__sim/models/${path}`, { method: 'DELETE' })).status;
}

describe('models pulled and removed at runtime', { timeout: HTTP_SUITE_TIMEOUT_MS }, () => {
  it('lists and describes a model added over the control route, as after `ollama pull`', async () => {
    await withOllama(async (engine) => {
      const added = await postJson(`${engine.url}/__sim/models`, { name: 'pulled', contextLength: 16384 });
      assert.equal(added.status, 200, added.text);
      assert.equal((JSON.parse(added.text) as { model: string }).model, 'pulled:latest', 'served under the name Ollama gives it');
      assert.deepEqual(await tagNames(engine), ['m1:8b', 'pulled:latest']);
      const shown = await postJson(`${engine.url}/api/show`, { model: 'pulled' });
      assert.equal(shown.status, 200, shown.text);
      assert.equal((JSON.parse(shown.text) as { model_info: Record<string, unknown> }).model_info['pulled.context_length'], 16384);
      const chat = await postJson(`${engine.url}/api/chat`, { model: 'pulled', messages: [{ role: 'user', content: 'hi' }], stream: false });
      assert.equal(chat.status, 200, chat.text);
    });
  });

  it('answers not found for a model removed over the control route, as after `ollama rm`', async () => {
    await withOllama(async (engine) => {
      engine.addModel('hf.co/org/other:1b');
      assert.equal(await deleteModel(engine, 'm1:8b'), 200);
      assert.equal(await deleteModel(engine, 'hf.co/org/other:1b'), 200, 'a name with slashes is the rest of the path');
      assert.deepEqual(await tagNames(engine), []);
      assert.equal((await postJson(`${engine.url}/api/show`, { model: 'm1:8b' })).status, 404);
      assert.equal(await deleteModel(engine, 'm1:8b'), 404, 'a model no longer served');
    });
  });

  it('refuses a model it already serves and one it cannot read', async () => {
    await withOllama(async (engine) => {
      assert.equal((await postJson(`${engine.url}/__sim/models`, 'm1:8b')).status, 409);
      assert.equal((await postJson(`${engine.url}/__sim/models`, { name: 'x', decodeTps: 0 })).status, 400);
      assert.equal((await postJson(`${engine.url}/__sim/models`, { name: 'x', contextLenght: 8192 })).status, 400, 'a misspelt option');
      assert.equal((await postJson(`${engine.url}/__sim/models`, { contextLength: 8192 })).status, 400, 'no name');
      assert.deepEqual(await tagNames(engine), ['m1:8b']);
    });
  });

  it('lets the in-process handle pull and remove as the control routes do', async () => {
    await withOllama(async (engine) => {
      assert.equal(engine.addModel({ name: 'pulled', family: 'qwen3' }), 'pulled:latest');
      assert.throws(() => engine.addModel('pulled:latest'), /already served/);
      assert.equal(engine.removeModel('m1:8b'), true);
      assert.equal(engine.removeModel('m1:8b'), false);
      assert.deepEqual(await tagNames(engine), ['pulled:latest']);
    });
  });
});
