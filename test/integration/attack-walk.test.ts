/**
 * The walk under attack (issue 9): callers that hang up at any point, directly and through a
 * peer, must leave every queue-depth counter at zero and every routing-log row settled; the
 * outside attack found 27 of 200 direct clients and 15 of 150 forwarded ones leaking a count
 * (and a pending row) when they left before the forward started, most reliably during a slow
 * engine probe. The probe is held here by a front in front of the engine, so "the caller left
 * during the probe" is a state the test waits for, not a race.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogEntry } from '../../src/routing-log/entry.js';
import { startEngineFront, type EngineFront } from '../helpers/engine-front.js';
import { eventually } from '../helpers/hub-process.js';
import { type PoolHub, START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const MODEL = 'walk:7b';
/** Bounds every load loop: how many callers each phase sends. */
const CALLERS_DURING_PROBE = 12;
const CALLERS_AT_RANDOM = 40;
/** Bounds the rounds of callers sent to leave during a held probe (see the first test). */
const PROBE_ROUNDS_MAX = 5;
/** A streamed answer lasts ~200 ms of wall time (400 tokens at 20 tok/s, 100x faster); callers leave somewhere in 0-300 ms. */
const LEAVE_WITHIN_MS = 300;
const SETTLE_TIMEOUT_MS = 15_000;

/** One caller: a chat on `path`, streamed or not, abandoned after `leaveAfterMs` (or when `leave` fires). */
function caller(hub: PoolHub, opts: { stream: boolean; leaveAfterMs?: number; leave?: AbortSignal }): Promise<void> {
  const abort = new AbortController();
  opts.leave?.addEventListener('abort', () => abort.abort(), { once: true });
  const timer = opts.leaveAfterMs === undefined ? null : setTimeout(() => abort.abort(), opts.leaveAfterMs);
  return request(`${hub.pool}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream: opts.stream, messages: [{ role: 'user', content: 'leave whenever' }] }),
    signal: abort.signal,
  })
    .then((res) => res.body.text())
    .then(
      () => undefined,
      () => undefined,
    )
    .finally(() => timer && clearTimeout(timer));
}

/** Every counter this Hub keeps and advertises is zero, and no row is pending. */
async function quiet(hub: PoolHub): Promise<void> {
  await eventually(
    async () => {
      const status = await hub.status();
      const rows = await hub.routingLog();
      return (
        status.localNode.queueDepth === 0 &&
        status.localNode.backends.every((b) => b.inFlight === 0) &&
        status.peers.every((p) => p.forwardedInFlight === 0) &&
        rows.every((r) => r.outcome !== 'pending')
      );
    },
    `${hub.name}'s counters to return to zero and its rows to settle`,
    SETTLE_TIMEOUT_MS,
  ).catch(async (err) => {
    const status = await hub.status();
    const pending = (await hub.routingLog()).filter((r) => r.outcome === 'pending').length;
    throw new Error(
      `${(err as Error).message}: queueDepth ${status.localNode.queueDepth}, forwarded ${JSON.stringify(status.peers.map((p) => p.forwardedInFlight))}, ${pending} rows pending`,
    );
  });
}

const leftBeforeAnyAttempt = (r: RoutingLogEntry) => r.clientClosed && r.attempt === null;

describe('callers that hang up at any point', { timeout: START_TIMEOUT_MS + 4 * TEST_TIMEOUT_MS }, () => {
  let engine: SimEngine;
  let front: EngineFront;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [{ name: MODEL, decodeTps: 20, answerTokens: 400 }], timeScale: 0.01 });
    front = await startEngineFront(engine.url);
  });
  // a has no engine of its own: everything it is asked goes to b, whose engine sits behind the front.
  const pool = usePool<'a' | 'b'>(() => ({ hubs: { a: {}, b: { env: { OLLAMA_URL: front.url } } }, pairs: [['a', 'b']] }));
  before(async () => {
    await pool().a.waitForPeer(pool().b, `holding ${MODEL}`, (p) => p.backends?.some((b) => b.models.includes(MODEL)) ?? false, TEST_TIMEOUT_MS);
  });
  /** Callers of `hub` (b's own, or a's forwarded to b) that all leave while b's engine probe is held. */
  async function leaveDuringProbe(hub: PoolHub): Promise<void> {
    front.holdProbes();
    const leave = new AbortController();
    const callers = Array.from({ length: CALLERS_DURING_PROBE }, (_, i) => caller(hub, { stream: i % 2 === 0, leave: leave.signal }));
    await eventually(() => front.probesHeld > 0, "b's engine probe to be held");
    leave.abort();
    await Promise.all(callers);
    front.releaseProbes();
  }

  after(async () => {
    await front?.close();
    await engine?.close();
  });

  it('releases the count and settles the row of a caller that left during the engine probe', { timeout: TEST_TIMEOUT_MS }, async () => {
    // The probe held can be one b started on its own (a's health poll reads b's inventory), before
    // any caller reached b; then the callers left before b read them, and none waited on it. Such a
    // round proves the counters only, so rounds repeat until one left a caller waiting.
    let rows: readonly RoutingLogEntry[] = [];
    for (let round = 0; round < PROBE_ROUNDS_MAX && !rows.some(leftBeforeAnyAttempt); round++) {
      await leaveDuringProbe(pool().b);
      await quiet(pool().b);
      rows = await pool().b.routingLog();
    }
    assert.ok(rows.some(leftBeforeAnyAttempt), `no caller of ${PROBE_ROUNDS_MAX} rounds was still waiting on the probe when it left`);
    for (const r of rows.filter(leftBeforeAnyAttempt)) {
      assert.equal(r.outcome, 'failed');
      assert.equal(r.status, null);
      assert.equal(r.node, null, 'no node was being waited on');
    }
    assert.equal(engine.state().inFlight, 0);
  });

  it("releases what both Hubs count when the caller of a forward leaves during the serving Hub's probe", { timeout: TEST_TIMEOUT_MS }, async () => {
    await leaveDuringProbe(pool().a);
    await quiet(pool().a);
    await quiet(pool().b);
  });

  it('returns every counter to zero after callers leave at random points, directly and through a peer', { timeout: TEST_TIMEOUT_MS }, async () => {
    const callers = Array.from({ length: CALLERS_AT_RANDOM }, (_, i) =>
      caller(i % 2 === 0 ? pool().a : pool().b, { stream: i % 3 !== 0, leaveAfterMs: Math.floor(Math.random() * LEAVE_WITHIN_MS) }),
    );
    await Promise.all(callers);
    await quiet(pool().a);
    await quiet(pool().b);
    await eventually(() => engine.state().inFlight === 0, 'the engine to have nothing in flight');
  });
});
