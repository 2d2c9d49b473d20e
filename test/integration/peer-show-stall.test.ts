/**
 * POST /api/show for a model only peers hold, when the peer asked first has stalled: its process
 * is stopped (SIGSTOP), so the kernel still accepts A's connection and nothing ever answers it.
 * Before the lookup had its own header deadline it waited out the 300 s completion budget per
 * stalled peer, though an engine describes a model in under 0.3 s.
 *
 * A Hub process has no knob for the lookup's 15 s header deadline (PEER_SHOW_HEADERS_TIMEOUT_MS;
 * only LocalRoutes built in-process takes a shorter one), so this test waits it out once in wall time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { engineShow, nodeName, POOL_API, START_TIMEOUT_MS, startPool, type Pool } from '../helpers/pool-fixture.js';
import { scaled } from '../helpers/time-scale.js';

const MODEL = 'peer-only:8b'; // on B and C, described differently by each
const STALL_MS = 15_000;

type L = 'a' | 'b' | 'c';

describe('a stalled peer on /api/show (the lookup once waited out the 300 s completion budget per stalled peer)', () => {
  let pool: Pool<L>;

  before(
    async () => {
      pool = await startPool<L>({
        hubs: {
          a: { env: { HUB_LOG_LEVEL: 'debug' } },
          b: { ollama: { models: [{ name: MODEL, contextLength: 8192 }] } },
          c: { ollama: { models: [{ name: MODEL, contextLength: 32768 }] } },
        },
        pairs: [
          ['a', 'b'],
          ['a', 'c'],
        ],
      });
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      pool?.b.process.child.kill('SIGCONT');
      await pool?.stop();
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('is skipped for the next peer, with no routing-log row and nothing added to its queue depth', { timeout: scaled(STALL_MS + 60_000) }, async () => {
    const { a, b, c } = pool;
    assert.notDeepEqual(await engineShow(b, MODEL), await engineShow(c, MODEL), 'the two descriptions can be told apart');
    // The pin puts B first in the lookup's order, so the stall is met rather than ranked around.
    const pinned = await a.api('POST', `${POOL_API}/pins`, { scope: 'model', model: MODEL, target: nodeName('b') });
    assert.equal(pinned.status, 200, JSON.stringify(pinned.json));
    const rowsBefore = (await a.routingLog()).length;

    assert.ok(b.process.child.kill('SIGSTOP'), "B's process stopped");
    let shown: { status: number; json: unknown } | null = null;
    const lookup = request(`${a.pool}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL }),
      headersTimeout: scaled(STALL_MS + 30_000),
      bodyTimeout: scaled(STALL_MS + 30_000),
    }).then(async (res) => (shown = { status: res.statusCode, json: await res.body.json() }));
    // Read A's view of B for as long as the lookup is waiting on it.
    const depths: (number | null)[] = [];
    while (shown === null) {
      const row = (await a.status()).peers.find((p) => p.nodeFqdn === b.name);
      depths.push(row?.forwardedInFlight ?? null, row?.queueDepth ?? null);
      await Promise.race([lookup, new Promise((r) => setTimeout(r, 250))]);
    }
    await lookup;
    b.process.child.kill('SIGCONT');

    const answer = shown as { status: number; json: unknown };
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.deepEqual(answer.json, await engineShow(c, MODEL), 'C described it');
    assert.match(
      a.log(),
      new RegExp(`"peer":"${b.name.replace(/\./g, '\\.')}"[^\n]*a peer did not describe the model in time`),
      'B was asked first, and given up on',
    );
    assert.ok(depths.length > 2, 'B was read while the lookup waited');
    assert.ok(
      depths.every((d) => d === 0),
      `B's queue depth stayed 0 while the lookup waited on it (read ${depths.length / 2} times; highest ${JSON.stringify(Math.max(...depths.map((d) => d ?? -1)))})`,
    );
    assert.equal((await a.routingLog()).length, rowsBefore, 'the lookup opened no routing-log row');
  });
});
