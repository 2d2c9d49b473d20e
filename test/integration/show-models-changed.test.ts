/**
 * POST /api/show asks this node's Ollamas live instead of trusting the engines' snapshot, which
 * can be 20 s old or more. Before, a model pulled here since the snapshot answered 502 "No pool
 * node currently has model" until the snapshot caught up (~11 s in the audit's run, long enough
 * for `ollama run` and OpenClaw, which ask /api/show first, to fail), and a model removed here
 * since had the local engine's 404 relayed although a peer held it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { engineShow, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const SHARED = 'shared:8b'; // on both, described differently by each
const SHARED_HERE = { name: SHARED, contextLength: 8192 };
const PULLED = 'pulled:8b';

type L = 'a' | 'b';

describe("/api/show after this node's Ollama pulled or removed a model since the snapshot", { timeout: TEST_TIMEOUT_MS }, () => {
  const pool = usePool<L>({
    hubs: {
      a: { ollama: { models: [SHARED_HERE, 'here-only:8b'] } },
      b: { ollama: { models: [{ name: SHARED, contextLength: 32768 }] } },
    },
    pairs: [['a', 'b']],
    // A snapshot kept for five minutes surely predates every change the tests make.
    settings: { poolProbeSnapshotTtlMs: 300_000 },
  });

  it('describes a model pulled on this node since the snapshot, from this node', async () => {
    const { a } = pool();
    const ollama = a.engines.ollama!;
    assert.equal((await post(a, '/api/show', { model: SHARED })).status, 200, 'the snapshot is taken before the pull');
    ollama.addModel({ name: PULLED, contextLength: 12288 });
    try {
      const shown = await post(a, '/api/show', { model: PULLED });
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual(shown.json, await engineShow(a, PULLED), "A's own Ollama described it");
    } finally {
      ollama.removeModel(PULLED);
    }
  });

  it('passes a model removed here since the snapshot to a peer that holds it', async () => {
    const { a, b } = pool();
    const ollama = a.engines.ollama!;
    assert.notDeepEqual(await engineShow(a, SHARED), await engineShow(b, SHARED), 'the two descriptions can be told apart');
    assert.equal((await post(a, '/api/show', { model: SHARED })).status, 200, 'the snapshot is taken before the removal');
    ollama.removeModel(SHARED);
    try {
      const shown = await post(a, '/api/show', { model: SHARED });
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual(shown.json, await engineShow(b, SHARED), 'B described it');
    } finally {
      ollama.addModel(SHARED_HERE);
    }
  });
});
