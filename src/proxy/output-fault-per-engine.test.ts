/**
 * Output faults are kept per engine, and an engine here is a backend, not a kind: OLLAMA_URL takes
 * a list, and two Ollama instances on one node are two engines. Keyed by kind, both shared one
 * record, so one instance's bad output pushed the healthy one behind every other candidate too
 * (spec, "A 200 that is not an answer": that engine, for that model, on that node).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { until } from '../engines/fake-engine.testkit.js';
import type { Candidate } from '../placement/types.js';
import { startSimEngine, type SimEngine } from '../sim/engine.js';
import { systemClock } from '../util/clock.js';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate as local, startWalkApp, walkDeps, type WalkApp } from './walk.fixture.js';
import type { WalkDeps } from './walk-types.js';
import { withheldFacts, withheldTest, WithholdBook } from './withhold-book.js';

const MODEL = 'qwen3:8b';
const chatRoute = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;

describe('output faults on one of two local Ollama instances', () => {
  let engine: SimEngine;
  let app: WalkApp;
  let deps: WalkDeps;
  const outputFaults = new WithholdBook(systemClock);
  let bad: Candidate;
  const good = local('ollama-2', 'http://127.0.0.1:1');

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: MODEL }], timeScale: 0.01 });
    bad = local('ollama-1', engine.url);
    deps = walkDeps({ outputFaults });
    app = await startWalkApp(deps, () => ({ route: chatRoute, model: MODEL, stream: true, order: [bad] }));
  });
  after(async () => {
    await app.close();
    await deps.dispatcher.close();
    await engine.close();
  });

  async function chat(): Promise<void> {
    const res = await request(`${app.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    await res.body.text().catch(() => '');
  }

  it('withholds the instance that gave it, and leaves the other one where it ranks', async () => {
    await engine.setFault({ mode: 'cut' });
    for (let i = 0; i < 2; i++) await chat();
    // The record is settled as the relayed body ends, which can be just after the app read it.
    await until(() => withheldTest(outputFaults, MODEL)(bad), 5_000, 'the two faults to withhold ollama-1');
    assert.equal(withheldTest(outputFaults, MODEL)(good), false);
    assert.deepEqual([...withheldFacts([bad, good], MODEL, outputFaults).keys()], ['local/ollama-1']);
    assert.deepEqual(
      outputFaults.withheld().map((w) => w.key),
      ['local|ollama-1|qwen3:8b'],
      'the record names the backend, as cihub_withheld and pool status show it',
    );
  });
});

describe('output faults under a tagless Ollama name and its :latest', () => {
  let engine: SimEngine;
  let app: WalkApp;
  let deps: WalkDeps;
  const outputFaults = new WithholdBook(systemClock);
  let ollama: Candidate;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: 'qwen3:latest' }], timeScale: 0.01 });
    ollama = local('ollama-1', engine.url);
    deps = walkDeps({ outputFaults });
    app = await startWalkApp(deps, (body) => ({
      route: chatRoute,
      model: (JSON.parse(body.toString()) as { model: string }).model,
      stream: true,
      order: [ollama],
    }));
  });
  after(async () => {
    await app.close();
    await deps.dispatcher.close();
    await engine.close();
  });

  it('adds them up as one model, and withholds it under either name', async () => {
    await engine.setFault({ mode: 'cut' });
    for (const model of ['qwen3', 'qwen3:latest']) {
      const res = await request(`${app.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      await res.body.text().catch(() => '');
    }
    await until(() => withheldTest(outputFaults, 'qwen3')(ollama), 5_000, 'the two faults to withhold the model');
    assert.equal(withheldTest(outputFaults, 'qwen3:latest')(ollama), true);
    assert.deepEqual(
      outputFaults.withheld().map((w) => w.key),
      ['local|ollama-1|qwen3:latest'],
    );
  });
});
