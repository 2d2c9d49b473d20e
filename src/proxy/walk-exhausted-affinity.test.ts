/**
 * The 502 a walk answers when every candidate failed carries X-Hub-Pool-Affinity (spec, "Prefix
 * affinity", "What it says"): a turn that failed everywhere is the one an operator most wants to
 * know was, or was not, following its session's prefix. Over real sockets, with two candidates
 * that refuse the connection.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { refusedUrl } from '../../test/helpers/refused-port.js';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate, startWalkApp, walkDeps } from './walk.fixture.js';

const chat = ROUTED_ROUTES.find((r) => r.path === '/api/chat')!;

describe('a walk on which every candidate failed', () => {
  for (const affinity of ['hit', 'skipped', 'miss'] as const) {
    it(`answers its 502 with X-Hub-Pool-Affinity: ${affinity} when affinity judged the request`, async () => {
      const deps = walkDeps();
      const order = [localCandidate('dead-1', await refusedUrl()), localCandidate('dead-2', await refusedUrl())];
      const app = await startWalkApp(deps, () => ({ route: chat, model: 'm:7b', order, affinity }));
      try {
        const res = await request(`${app.url}/api/chat`, { method: 'POST', body: '{}' });
        await res.body.dump();
        assert.equal(res.statusCode, 502);
        assert.equal(res.headers['x-hub-pool-affinity'], affinity);
      } finally {
        await app.close();
        await deps.dispatcher.close();
      }
    });
  }

  it('answers its 502 with no X-Hub-Pool-Affinity when affinity is off', async () => {
    const deps = walkDeps();
    const order = [localCandidate('dead-1', await refusedUrl())];
    const app = await startWalkApp(deps, () => ({ route: chat, model: 'm:7b', order }));
    try {
      const res = await request(`${app.url}/api/chat`, { method: 'POST', body: '{}' });
      await res.body.dump();
      assert.equal(res.statusCode, 502);
      assert.equal(res.headers['x-hub-pool-affinity'], undefined);
    } finally {
      await app.close();
      await deps.dispatcher.close();
    }
  });
});
