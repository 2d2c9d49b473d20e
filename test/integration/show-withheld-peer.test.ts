/**
 * Withholding a model is a rule of routing only (spec, "When a node lists a model it cannot
 * actually serve"): the engine still holds the model on disk. A peer whose engine withholds it is
 * no candidate for a chat, but still describes it on /api/show, as this Hub's own withheld Ollama
 * does; before, the lookup left such a peer out and answered 502 (audit, 2026-12-07).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, engineShow, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

const MODEL = 'gemma3:12b';
const LOAD_FAILURE = '{"error":"model failed to load, this may be due to resource limitations or an internal error"}';

type L = 'a' | 'b';

describe("/api/show for a model a peer's engine withholds", { timeout: TEST_TIMEOUT_MS }, () => {
  const pool = usePool<L>({
    hubs: { a: {}, b: { ollama: { models: [MODEL] } } },
    pairs: [['a', 'b']],
  });

  it('is described by that peer, though no chat is placed there', async () => {
    const { a, b } = pool();
    await b.engines.ollama!.setFault({ mode: 'error', status: 500, body: LOAD_FAILURE, model: MODEL, count: 2 });
    for (let i = 0; i < 2; i++) assert.notEqual((await chat(a, MODEL)).status, 200);
    await eventually(async () => (await a.peer(b))?.unservableModels?.includes(MODEL), "A to read B's withhold at its next poll", scaled(60_000));
    assert.equal((await chat(a, MODEL)).status, 502, 'no chat is placed on the withheld engine');

    const shown = await post(a, '/api/show', { model: MODEL });
    assert.equal(shown.status, 200, shown.text);
    assert.deepEqual(shown.json, await engineShow(b, MODEL));
  });
});
