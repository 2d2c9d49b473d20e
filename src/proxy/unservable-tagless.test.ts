/**
 * The unservable record reads a tagless Ollama name as the `:latest` it means (the issues'
 * decision; model-name.ts). Keyed by the name as asked, two failures of `qwen3` withheld only
 * `qwen3`: the engine still stood for `qwen3:latest`, the name it lists, so it was still placed
 * for that name and never reached unservableModels, and peers kept forwarding `qwen3` here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { until } from '../engines/fake-engine.testkit.js';
import type { BackendView } from '../engines/types.js';
import { localCandidates } from '../placement/candidates.js';
import { startSimEngine, type SimEngine } from '../sim/engine.js';
import { systemClock } from '../util/clock.js';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate, startWalkApp, walkDeps, type WalkApp } from './walk.fixture.js';
import type { WalkDeps } from './walk-types.js';
import { localUnservable, WithholdBook } from './withhold-book.js';

const LISTED = 'qwen3:latest';
const chatRoute = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;

describe('a model withheld under its tagless Ollama name', () => {
  let engine: SimEngine;
  let app: WalkApp;
  let deps: WalkDeps;
  const changes: string[] = [];
  const unservable = new WithholdBook(systemClock);
  const unservableHere = localUnservable(unservable);

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: LISTED }], timeScale: 0.01 });
    deps = walkDeps({
      unservable,
      onWithholdChange: (backendId, model, withheld) => changes.push(`${backendId} ${model} ${withheld ? 'withheld' : 'released'}`),
    });
    const order = [localCandidate('ollama-1', engine.url)];
    app = await startWalkApp(deps, (body) => ({ route: chatRoute, model: (JSON.parse(body.toString()) as { model: string }).model, order }));
  });
  after(async () => {
    await app.close();
    await deps.dispatcher.close();
    await engine.close();
  });

  async function chatAs(model: string): Promise<number> {
    const res = await request(`${app.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: false }),
    });
    await res.body.text();
    return res.statusCode;
  }

  const view: BackendView = {
    backendId: 'ollama-1',
    kind: 'ollama',
    url: 'http://127.0.0.1',
    running: true,
    healthy: true,
    models: [{ name: LISTED, parameterSize: null, capabilities: null, sizeBytes: null }],
    error: null,
    probedMsAgo: 0,
  };

  it('withholds the engine for both names once the two names failed once each, and is cleared by a success under either', async () => {
    await engine.setFault({ mode: 'error', status: 500 });
    assert.notEqual(await chatAs('qwen3'), 200);
    assert.notEqual(await chatAs(LISTED), 200);
    assert.deepEqual(changes, [`ollama-1 ${LISTED} withheld`], 'the two strikes added up to one withhold');
    assert.equal(unservableHere(view, LISTED), true, 'the name the engine lists, which unservableModels is built from');
    assert.equal(unservableHere(view, 'qwen3'), true);
    assert.deepEqual(
      localCandidates([view], 'qwen3', 'ollama', () => 0, unservableHere),
      [],
    );
    assert.deepEqual(
      localCandidates([view], LISTED, 'ollama', () => 0, unservableHere),
      [],
    );

    await engine.clearFaults();
    assert.equal(await chatAs('qwen3'), 200);
    await until(() => !unservableHere(view, LISTED), 5_000, 'the success to end the withhold');
    assert.deepEqual(changes.slice(1), ['ollama-1 qwen3 released']);
  });
});
