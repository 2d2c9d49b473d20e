/**
 * Failover between Hubs and recovery (issue 4, spec "Failover" and "Recovery"), on two real
 * Hubs polling each other every 10 s: a peer killed while it ranks first is failed over at
 * once, marked unreachable after three failed polls, and back in the pool on its first good
 * poll after it restarts, with no operator action; a peer that stopped trusting this Hub
 * refuses the forward with 401, and the request moves on while that peer's capabilities are
 * forgotten until a good poll.
 *
 * A has the shared model on its own engine, so it is always a candidate. To make B rank first,
 * A's head start is 0 and two requests are held open on A's engine (its `hang` fault).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE_NAME } from '../../src/store/database.js';
import { chat, getJson, header, HeldRequests, LONG_TEST_TIMEOUT_MS, type PoolHub, TEST_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';

const SHARED = 'shared:8b'; // on A and B
const HOLD = 'hold:1b'; // on A only; its engine never answers it
const B_ONLY = 'b-only:8b';
const POLL_SECONDS = 10;
/** Three failed polls, plus a poll of slack and the time a poll takes. */
const UNREACHABLE_WITHIN_MS = (3 + 1.5) * POLL_SECONDS * 1000;

/** Runs `body` with A busier than B by two requests and no head start, so B ranks first for SHARED. */
async function withBRankingFirst(a: PoolHub, body: () => Promise<void>): Promise<void> {
  const held = new HeldRequests(a, HOLD);
  await a.engines.ollama!.setFault({ mode: 'hang', model: HOLD });
  await a.patchSettings({ poolLocalAffinity: 0 });
  try {
    await held.hold(2);
    await body();
  } finally {
    await held.releaseAll();
    await a.engines.ollama!.clearFaults();
    await a.patchSettings({ poolLocalAffinity: 1 });
  }
}

describe('failover between Hubs', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: {
      a: { ollama: { models: [SHARED, HOLD] } },
      b: { ollama: { models: [SHARED, B_ONLY] } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it(
    'fails over from a peer killed while it ranks first, marks it unreachable after three polls, and takes it back when it returns',
    { timeout: LONG_TEST_TIMEOUT_MS },
    async () => {
      const { a, b } = pool();
      await withBRankingFirst(a, async () => {
        const before = await chat(a, SHARED);
        assert.equal(header(before, 'x-hub-pool-served-by'), b.name, 'B ranks first while A is busier');

        await b.stop('SIGKILL');
        const killedAt = Date.now();

        // The walk meets the dead peer and moves on to the next candidate, A's own engine.
        const res = await chat(a, SHARED);
        assert.equal(res.status, 200, res.text);
        assert.equal(header(res, 'x-hub-pool-served-by'), 'local');
        const row = await a.settledRow(String(header(res, 'x-hub-pool-request-id')));
        assert.deepEqual(row.failedOverFrom, [b.name]);
        assert.equal(row.attempts[0]?.status, null, 'no status: the peer never answered');
        assert.equal(row.outcome, 'served');

        // Three failed polls later, B is unreachable and no longer a candidate at all.
        const down = await a.waitForPeer(b, 'unreachable', (p) => p.status === 'unreachable', UNREACHABLE_WITHIN_MS);
        assert.ok(down.consecutiveFailures >= 3, JSON.stringify(down));
        assert.ok(Date.now() - killedAt >= 2 * POLL_SECONDS * 1000, 'not before the third poll could have run');
        const skipped = await chat(a, SHARED);
        assert.equal(header(skipped, 'x-hub-pool-served-by'), 'local');
        const skippedRow = await a.settledRow(String(header(skipped, 'x-hub-pool-request-id')));
        assert.equal(skippedRow.candidates, 1);
        assert.deepEqual(skippedRow.failedOverFrom, []);
        assert.equal((await chat(a, B_ONLY)).status, 502, 'a model only B holds has no candidate while B is away');

        // B comes back on the same port with the same data: the next poll reconnects it by itself.
        await b.restart();
        await waitConnected(a, b, (POLL_SECONDS + 5) * 1000);
        const after = await chat(a, SHARED);
        assert.equal(header(after, 'x-hub-pool-served-by'), b.name, 'B ranks first again');
        const peerOnly = await chat(a, B_ONLY);
        assert.equal(peerOnly.status, 200, peerOnly.text);
        assert.equal(header(peerOnly, 'x-hub-pool-served-by'), b.name);
      });
    },
  );

  it('skips a peer that no longer trusts this Hub on its 401, and forgets its models until a good poll', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const listed = async () => ((await getJson(a, '/v1/models')).json.data as { id: string }[]).map((m) => m.id);
    await waitConnected(a, b);
    assert.ok((await listed()).includes(B_ONLY));

    // B forgets the pairing without telling A (unpairing would notify A, which would drop its half).
    // Killed, not stopped: a Hub that stops tells its peers it is leaving, and A would then not try it.
    await b.stop('SIGKILL');
    const db = new Database(join(b.dataDir, DATABASE_FILE_NAME));
    try {
      assert.ok(db.prepare('DELETE FROM hub_pool_peer').run().changes >= 1);
    } finally {
      db.close();
    }
    await b.restart();

    await withBRankingFirst(a, async () => {
      const res = await chat(a, SHARED);
      assert.equal(res.status, 200, res.text);
      assert.equal(header(res, 'x-hub-pool-served-by'), 'local', 'the app still gets an answer');
      const row = await a.settledRow(String(header(res, 'x-hub-pool-request-id')));
      assert.deepEqual(row.failedOverFrom, [b.name]);
      assert.equal(row.attempts[0]?.status, 401);
      assert.match(row.attempts[0]?.reason ?? '', /the peer refused this Hub/);

      // B's capabilities are gone: it is neither listed nor tried again.
      assert.ok(!(await listed()).includes(B_ONLY), 'B-only models leave the listing');
      assert.equal((await a.peer(b))?.backends, null);
      const next = await chat(a, SHARED);
      assert.equal(header(next, 'x-hub-pool-served-by'), 'local');
      const nextRow = await a.settledRow(String(header(next, 'x-hub-pool-request-id')));
      assert.deepEqual(nextRow.failedOverFrom, [], 'B is not tried again');
      assert.equal(nextRow.candidates, 1);
    });
  });
});
