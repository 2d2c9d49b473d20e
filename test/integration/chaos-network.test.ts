/**
 * The network between Hubs failing (issue 15, item 3): a partition between A and B and its
 * healing, and a peer slow to send its answer's headers. A reaches B only through a TCP relay
 * the test can cut and restore (HUB_POOL_PEER_ORIGINS points A at it), and B reaches A through
 * another; C, which also holds the shared model, stays reachable throughout.
 *
 * While A and B are cut off from each other, every request C could serve is served by C; only
 * what B alone holds fails. A sees B go unreachable, and once the relays are restored it takes
 * B back with no operator action. A peer that keeps A waiting past the header deadline loses
 * the request to C, and the abandoned forward is let go on B, so nothing stays held anywhere.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/hub-process.js';
import {
  chat,
  header,
  LONG_TEST_TIMEOUT_MS,
  nodeName,
  type PoolHub,
  START_TIMEOUT_MS,
  TEST_TIMEOUT_MS,
  usePool,
  waitConnected,
} from '../helpers/pool-fixture.js';
import { heldCounters, TcpRelay } from '../helpers/chaos.js';

const OWN = 'own:1b';
const SHARED = 'shared:8b'; // on B and C
const SLOW = 'slow:8b'; // on B and C: B's engine is made slow to answer it
const B_ONLY = 'b-only:8b';
const POLL_SECONDS = 10;
/** A's header deadline: short, so a slow peer is given up on quickly; B's engine is made far slower. */
const FIRST_BYTE_TIMEOUT_MS = 3_000;

describe('a partition between Hubs, its healing, and a peer slow to send headers', () => {
  const pool = usePool<'a' | 'b' | 'c'>({
    hubs: {
      a: { ollama: { models: [OWN] } },
      b: { ollama: { models: [SHARED, SLOW, B_ONLY] } },
      c: { ollama: { models: [SHARED, SLOW] } },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
    ],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });
  let toB: TcpRelay;
  let toA: TcpRelay;

  before(
    async () => {
      const { a, b, c } = pool();
      toB = await TcpRelay.start(b.port);
      toA = await TcpRelay.start(a.port);
      const origins = (map: Record<string, string>) =>
        Object.entries(map)
          .map(([name, origin]) => `${name}=${origin}`)
          .join(',');
      // From now on A dials B, and B dials A, only through the relays.
      await a.restart({
        HUB_POOL_PEER_ORIGINS: origins({ [b.name]: toB.origin, [c.name]: `http://127.0.0.1:${c.port}` }),
        HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS),
      });
      await b.restart({ HUB_POOL_PEER_ORIGINS: origins({ [a.name]: toA.origin }) });
      for (const [viewer, other] of [
        [a, b],
        [b, a],
        [a, c],
      ] as const)
        await waitConnected(viewer, other);
      assert.ok(toB.accepted > 0 && toA.accepted > 0, 'the Hubs talk through the relays');
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      await Promise.all([toB?.close(), toA?.close()]);
    },
    { timeout: START_TIMEOUT_MS },
  );

  async function holdsNothing(hub: PoolHub): Promise<void> {
    const held = await eventually(async () => {
      const h = heldCounters(await hub.status());
      return h.length === 0 ? h : null;
    }, `${hub.name} to hold nothing`).catch(async () => heldCounters(await hub.status()));
    assert.deepEqual(held, [], `${hub.name} still holds: ${held.join(', ')}`);
  }

  it(
    'serves through C while A and B are cut off, marks B unreachable, and takes B back once the partition heals',
    { timeout: LONG_TEST_TIMEOUT_MS },
    async () => {
      const { a, b, c } = pool();
      toB.cut();
      toA.cut();

      // Nothing C could serve is lost, whichever peer A tries first.
      for (let i = 0; i < 6; i++) {
        const res = await chat(a, SHARED);
        assert.equal(res.status, 200, res.text);
        assert.equal(header(res, 'x-hub-pool-served-by'), c.name);
      }
      await a.waitForPeer(b, 'unreachable', (p) => p.status !== 'connected', (3 + 2) * POLL_SECONDS * 1000);
      const lost = await chat(a, B_ONLY);
      assert.notEqual(lost.status, 200, 'what only B holds cannot be served while B is cut off');
      await holdsNothing(a);

      toB.restore();
      toA.restore();
      await waitConnected(a, b, (3 + 2) * POLL_SECONDS * 1000);
      await waitConnected(b, a, (3 + 2) * POLL_SECONDS * 1000);
      const back = await eventually(async () => {
        const r = await chat(a, B_ONLY);
        return r.status === 200 ? r : null;
      }, 'A to serve through B again');
      assert.equal(header(back, 'x-hub-pool-served-by'), nodeName('b'));
      await holdsNothing(a);
      await holdsNothing(b);
    },
  );

  it(
    'gives a request to the other peer when one keeps A waiting past the header deadline, and the slow one lets the abandoned forward go',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a, b, c } = pool();
      const engines = { [b.name]: b.engines.ollama!, [c.name]: c.engines.ollama! };
      const slow = { mode: 'slow-first-byte' as const, model: SLOW, delayMs: 100 * FIRST_BYTE_TIMEOUT_MS * 100 };
      // Both slow, so A meets the slowness whichever peer it tries first; the other is then made prompt.
      await Promise.all(Object.values(engines).map((e) => e.setFault(slow)));
      try {
        const taken = (name: string) => engines[name]!.state().requests;
        const before = Object.fromEntries(Object.keys(engines).map((name) => [name, taken(name)]));
        const answer = chat(a, SLOW);
        const first = await eventually(() => Object.keys(engines).find((name) => taken(name) > before[name]!), 'a peer to take the request');
        const second = first === b.name ? c.name : b.name;
        await engines[second]!.clearFaults();
        const res = await answer;
        assert.equal(res.status, 200, res.text);
        assert.equal(header(res, 'x-hub-pool-served-by'), second);
        const row = await a.settledRow(header(res, 'x-hub-pool-request-id')!);
        assert.equal(row.outcome, 'served');
        assert.deepEqual(row.failedOverFrom, [first]);
        assert.equal(row.attempts[0]?.reason, `No response headers within ${FIRST_BYTE_TIMEOUT_MS}ms`);
      } finally {
        await Promise.all(Object.values(engines).map((e) => e.clearFaults()));
      }
      const [bEngine, cEngine] = [b.engines.ollama!, c.engines.ollama!];
      // The forward A abandoned is not left running on B or on its engine.
      await eventually(() => bEngine.state().inFlight === 0 && cEngine.state().inFlight === 0, 'the engines to let the slow requests go');
      for (const hub of [a, b, c]) await holdsNothing(hub);
    },
  );
});
