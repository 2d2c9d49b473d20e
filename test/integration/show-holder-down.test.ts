/**
 * POST /api/show reads which local Ollama holds the model from the engines' snapshot, which can
 * be as old as poolProbeSnapshotTtlMs. A holder that went down since is passed over for a peer
 * that holds the model, as the listings fall back to peers; before, the lookup answered 502 with
 * the connection error until the snapshot caught up (audit, 2026-12-07).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { engineShow, POOL_API, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const SHARED = 'shared:8b'; // on both, described differently by each
const HERE_ONLY = 'here-only:8b';

type L = 'a' | 'b';

describe('/api/show when the local Ollama holding the model has gone down since the snapshot', { timeout: TEST_TIMEOUT_MS }, () => {
  const pool = usePool<L>({
    hubs: {
      a: { ollama: { models: [{ name: SHARED, contextLength: 8192 }, HERE_ONLY] } },
      b: { ollama: { models: [{ name: SHARED, contextLength: 32768 }] } },
    },
    pairs: [['a', 'b']],
  });

  it('is described by a peer that holds the model, and a model no peer holds names the local failure', async () => {
    const { a, b } = pool();
    assert.notDeepEqual(await engineShow(a, SHARED), await engineShow(b, SHARED), 'the two descriptions can be told apart');
    // A snapshot kept for five minutes still shows the engine up once it refuses.
    await a.api('PATCH', `${POOL_API}/settings`, { poolProbeSnapshotTtlMs: 300_000 });
    assert.equal((await post(a, '/api/show', { model: SHARED })).status, 200);
    await a.engines.ollama!.setFault({ mode: 'refuse' });
    try {
      const shown = await post(a, '/api/show', { model: SHARED });
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual(shown.json, await engineShow(b, SHARED), 'B described it');

      const alone = await post(a, '/api/show', { model: HERE_ONLY });
      assert.equal(alone.status, 502, alone.text);
      assert.equal((alone.json as { code: string }).code, 'HUB_ERR_ALL_CANDIDATES_FAILED');
      assert.match((alone.json as { error: string }).error, /did not answer \/api\/show \(.*ECONNREFUSED/);
    } finally {
      await a.engines.ollama!.clearFaults();
      await a.api('PATCH', `${POOL_API}/settings`, { poolProbeSnapshotTtlMs: 0 });
    }
  });
});
