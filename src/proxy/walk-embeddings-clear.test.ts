/**
 * Issue 10 audit: a completed embeddings request is a clean answer like any other, so it ends a
 * withheld model's record (until this, only judged chat and completion answers cleared it, and a
 * withheld embedding model stayed behind every other candidate however well it served).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../sim/engine.js';
import { systemClock } from '../util/clock.js';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate, startWalkApp, walkDeps, type WalkApp } from './walk.fixture.js';
import type { WalkDeps } from './walk-types.js';
import { engineModelKey, WithholdBook } from './withhold-book.js';
import { until } from '../engines/fake-engine.testkit.js';

const EMBED = 'nomic-embed-text:latest';
const embed = ROUTED_ROUTES.find((r) => r.path === '/api/embed')!;

describe('an embeddings answer ends a withhold', () => {
  let engine: SimEngine;
  let app: WalkApp;
  let deps: WalkDeps;
  const changes: string[] = [];
  const unservable = new WithholdBook(systemClock);
  const key = engineModelKey('local', 'ollama', EMBED);

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: EMBED, capabilities: ['embedding'] }], timeScale: 0.01 });
    deps = walkDeps({
      unservable,
      onWithholdChange: (backendId, model, withheld) => changes.push(`${backendId} ${model} ${withheld ? 'withheld' : 'released'}`),
    });
    const order = [localCandidate('ollama', engine.url)];
    app = await startWalkApp(deps, () => ({ route: embed, model: EMBED, order }));
  });
  after(async () => {
    await app.close();
    await deps.dispatcher.close();
    await engine.close();
  });

  it('clears the withheld record and says so', async () => {
    unservable.strike(key, 'HTTP 500');
    unservable.strike(key, 'HTTP 500');
    assert.equal(unservable.isWithheld(key), true, 'two failures withhold it');
    const res = await request(`${app.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: EMBED, input: 'hello' }),
    });
    assert.equal(res.statusCode, 200);
    await res.body.text();
    // The record is settled as the relayed body ends, which can be just after the app read it.
    await until(() => !unservable.isWithheld(key), 5_000, 'the withhold to end');
    assert.deepEqual(changes, [`ollama ${EMBED} released`]);
  });
});
