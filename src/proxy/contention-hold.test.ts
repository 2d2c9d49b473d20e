import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { startSimEngine, type SimEngine } from '../sim/engine.js';
import type { Candidate } from '../placement/types.js';
import { affinityHold, engineResidency, type ResidencyRead } from './contention-hold.js';

const HERMES = 'qwen3.6:35b';
const OPENCLAW = { model: 'qwen3.8:27b', numCtx: 32768 };
/**
 * The budget for reads of the real simulator: the 500 ms placement budget is a wall-clock race a
 * loaded CI machine can lose, which read as "residency unknown". The budget has its own test below.
 */
const UNHURRIED_MS = 60_000;

describe('affinityHold: contention holds an affinity engine only where its prefix can still be warm', () => {
  let engine: SimEngine;
  const dispatcher = new Agent();
  let local: Candidate;
  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [HERMES, OPENCLAW.model], timeScale: 0 });
    local = {
      id: 'local/ollama',
      node: 'local',
      backendId: 'ollama',
      engine: 'ollama',
      url: engine.url,
      queueDepth: 1,
      loadReported: true,
      peerId: null,
      hardwareTier: null,
      pressure: 1,
    };
  });
  after(async () => {
    await engine.close();
    await dispatcher.close();
  });

  const read = () => engineResidency(dispatcher);

  it('no affinity target: nothing is held and nothing asked', async () =>
    assert.deepEqual(
      await affinityHold({ contentionCanMove: true, target: null, model: HERMES, runsAt: 65536, busy: [OPENCLAW], read: read(), budgetMs: UNHURRIED_MS }),
      {
        held: null,
        refused: null,
      },
    ));

  it('the model is not resident (evicted, or never loaded): the turn would prefill cold, so no hold', async () =>
    assert.deepEqual(
      await affinityHold({ contentionCanMove: true, target: local, model: HERMES, runsAt: 65536, busy: [OPENCLAW], read: read(), budgetMs: UNHURRIED_MS }),
      {
        held: null,
        refused: 'not resident',
      },
    ));

  it('resident in /api/ps: held', async () => {
    const res = await fetch(`${engine.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: HERMES, stream: false, messages: [{ role: 'user', content: 'hi' }], options: { num_ctx: 65536 } }),
    });
    assert.equal(res.status, 200);
    await res.text();
    assert.deepEqual(
      await affinityHold({ contentionCanMove: true, target: local, model: HERMES, runsAt: 65536, busy: [OPENCLAW], read: read(), budgetMs: UNHURRIED_MS }),
      {
        held: 'local/ollama',
        refused: null,
      },
    );
  });

  it("the session's model generating there at another window: the runner was reloaded, no hold, and the engine is not asked", async () => {
    let asked = false;
    const spy: ResidencyRead = async () => ((asked = true), [HERMES]);
    assert.deepEqual(
      await affinityHold({ contentionCanMove: true, target: local, model: HERMES, runsAt: 65536, busy: [{ model: HERMES, numCtx: 32768 }], read: spy }),
      {
        held: null,
        refused: 'reloaded at another window',
      },
    );
    assert.equal(asked, false);
  });

  it('the same model under its other Ollama spelling at another window is the reload too (qwen3 is qwen3:latest)', async () => {
    const spy: ResidencyRead = async () => ['qwen3:latest'];
    assert.deepEqual(
      await affinityHold({
        contentionCanMove: true,
        target: local,
        model: 'qwen3:latest',
        runsAt: 32768,
        busy: [{ model: 'qwen3', numCtx: 65536 }],
        read: spy,
      }),
      {
        held: null,
        refused: 'reloaded at another window',
      },
    );
  });

  it('a read slower than the placement budget does not hold', async () => {
    const slow: ResidencyRead = (_c, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    assert.deepEqual(await affinityHold({ contentionCanMove: true, target: local, model: HERMES, runsAt: 65536, busy: [OPENCLAW], read: slow, budgetMs: 20 }), {
      held: null,
      refused: 'residency unknown',
    });
  });

  it('an engine with no residency API is read from its inventory: held', async () =>
    assert.deepEqual(
      await affinityHold({
        contentionCanMove: true,
        target: { ...local, engine: 'vllm' },
        model: HERMES,
        runsAt: null,
        busy: [OPENCLAW],
        read: read(),
        budgetMs: UNHURRIED_MS,
      }),
      {
        held: 'local/ollama',
        refused: null,
      },
    ));

  it("a peer affinity qualified is held: its engines are the peer's to judge, and nothing is asked", async () => {
    const never: ResidencyRead = async () => assert.fail('asked');
    const peer: Candidate = { ...local, id: 'core-2.tail0.ts.net/pool', node: 'core-2.tail0.ts.net', backendId: null, engine: null, peerId: 'core-2' };
    assert.deepEqual(await affinityHold({ contentionCanMove: true, target: peer, model: HERMES, runsAt: null, busy: [OPENCLAW], read: never }), {
      held: 'core-2.tail0.ts.net/pool',
      refused: null,
    });
  });

  it('contended, but contention could not move it (off, or no peer to take the turn): it keeps its place and nothing is asked', async () => {
    const never: ResidencyRead = async () => assert.fail('asked');
    assert.deepEqual(await affinityHold({ contentionCanMove: false, target: local, model: HERMES, runsAt: 65536, busy: [OPENCLAW], read: never }), {
      held: 'local/ollama',
      refused: null,
    });
  });

  it('not contended: the engine keeps its place anyway and nothing is asked', async () => {
    const never: ResidencyRead = async () => assert.fail('asked');
    assert.deepEqual(await affinityHold({ contentionCanMove: true, target: local, model: HERMES, runsAt: 65536, busy: [], read: never }), {
      held: 'local/ollama',
      refused: null,
    });
  });
});

describe('affinityHold on Lemonade: residency read from /api/v1/health', () => {
  let engine: SimEngine;
  const dispatcher = new Agent();
  let lemonade: Candidate;
  const MODEL = 'Qwen3-8B-GGUF';
  before(async () => {
    engine = await startSimEngine({ dialect: 'lemonade', models: [MODEL, 'Gemma-3-4b-it-GGUF'], timeScale: 0 });
    lemonade = {
      id: 'local/lemonade',
      node: 'local',
      backendId: 'lemonade',
      engine: 'lemonade',
      url: engine.url,
      queueDepth: 1,
      loadReported: true,
      peerId: null,
      hardwareTier: null,
      pressure: 1,
    };
  });
  after(async () => {
    await engine.close();
    await dispatcher.close();
  });
  const hold = () =>
    affinityHold({
      target: lemonade,
      model: MODEL,
      runsAt: null,
      busy: [{ model: 'Gemma-3-4b-it-GGUF', numCtx: null }],
      read: engineResidency(dispatcher),
      contentionCanMove: true,
      budgetMs: UNHURRIED_MS,
    });

  it('not loaded: no hold', async () => assert.deepEqual(await hold(), { held: null, refused: 'not resident' }));

  it('listed in all_models_loaded once it has served: held', async () => {
    const res = await fetch(`${engine.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.status, 200);
    await res.text();
    assert.deepEqual(await hold(), { held: 'local/lemonade', refused: null });
  });
});
