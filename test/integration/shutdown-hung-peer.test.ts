/**
 * SIGTERM while a health probe of a hung peer is out. The peer is stopped (SIGSTOP), so the
 * kernel accepts A's connection and nothing answers: the probe would run its whole 15 s budget.
 * A once waited for that probe after its drain (and kept starting new ones during the drain),
 * so a Hub with a hung peer exited up to 15 s after the 30 s drain, at the supervisor's 45 s kill.
 * Now the poller stops when shutdown begins and a call still out after the drain is cut.
 *
 * The evidence is the order of A's own log lines, not a stopwatch: had A waited out the probe,
 * the probe's failure would be logged between "hub stopping" and "hub stopped".
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LONG_TEST_TIMEOUT_MS, START_TIMEOUT_MS, startPool, type Pool } from '../helpers/pool-fixture.js';
import { eventually, logMessages } from '../helpers/hub-process.js';

type L = 'a' | 'b';

describe('SIGTERM with a health probe of a hung peer still out', () => {
  let pool: Pool<L>;

  before(
    async () => {
      pool = await startPool<L>({
        hubs: { a: { env: { HUB_LOG_LEVEL: 'debug' } }, b: {} },
        pairs: [['a', 'b']],
        settings: { poolHealthPollSeconds: 10 },
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

  it('stops without waiting for the probe and starts no probe after "hub stopping"', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool;
    const started = `capabilities probe of ${b.name} started`;
    assert.ok(b.process.child.kill('SIGSTOP'), "B's process stopped");
    try {
      const before = logMessages(a.log()).filter((m) => m === started).length;
      // A probe begun after B stopped can only hang: that is the call out when A is told to stop.
      await eventually(() => logMessages(a.log()).filter((m) => m === started).length > before, `A to start a probe of the stopped ${b.name}`, 30_000);
      const code = await a.process.stop('SIGTERM');
      assert.equal(code, 0, a.log());
    } finally {
      // Resumed only once A has exited: nothing B could answer let A finish.
      b.process.child.kill('SIGCONT');
    }

    const msgs = logMessages(a.log());
    const stopping = msgs.findIndex((m) => m.startsWith('hub stopping'));
    const stopped = msgs.indexOf('hub stopped');
    assert.ok(stopping >= 0 && stopped > stopping, a.log());
    const shutdown = msgs.slice(stopping, stopped);
    assert.deepEqual(
      shutdown.filter((m) => m.startsWith(`capabilities probe of ${b.name}`)),
      [],
      'no probe of B started, and none ended, between "hub stopping" and "hub stopped"',
    );
    assert.ok(
      shutdown.some((m) => /^[1-9]\d* call\(s\) still out after the drain were cut$/.test(m)),
      'the hung probe was cut after the drain',
    );
  });
});
