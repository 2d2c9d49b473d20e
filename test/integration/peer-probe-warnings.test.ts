/**
 * How a Hub's log tells of a paired Hub that stopped answering, between two real Hubs on
 * loopback: one warning when its health probes start failing and one when the failures mark it
 * unreachable, not one on every poll for as long as it is down, while its row still counts every
 * failed poll; and an info line at the first probe that works once it is back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UNREACHABLE_AFTER_FAILURES } from '../../src/peers/health-poller.js';
import { LONG_TEST_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';

const POLL_SECONDS = 10;
/** Enough failed polls past the one that marks the peer unreachable for a per-poll warning to show. */
const FAILED_POLLS = UNREACHABLE_AFTER_FAILURES + 2;

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly peer?: string;
  readonly failures?: number;
}
const PINO_WARN = 40;
const PINO_INFO = 30;

function logLines(log: string): LogLine[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

describe('the log while a paired Hub is down', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: ['a-only:1b'] } }, b: { ollama: { models: ['b-only:1b'] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it(
    'warns when the probes start failing and when the peer is marked unreachable, not at every poll, and logs at info when it answers again',
    { timeout: LONG_TEST_TIMEOUT_MS },
    async () => {
      const { a, b } = pool();
      await waitConnected(a, b);
      const failedProbe = `capabilities probe of ${b.name} failed`;
      const linesBefore = logLines(a.log()).length;

      // SIGKILL: no leaving notice, so A learns of it only from its own probes.
      await b.stop('SIGKILL');
      const down = await a.waitForPeer(
        b,
        `failing ${FAILED_POLLS} polls`,
        (p) => p.consecutiveFailures >= FAILED_POLLS,
        (FAILED_POLLS + 2) * POLL_SECONDS * 1000,
      );
      assert.equal(down.status, 'unreachable');

      const whileDown = logLines(a.log()).slice(linesBefore);
      const warned = whileDown.filter((l) => l.level >= PINO_WARN && l.msg.startsWith(failedProbe));
      assert.deepEqual(
        warned.map((l) => l.failures),
        [1, UNREACHABLE_AFTER_FAILURES],
        `one warning as the failures began and one as they marked it unreachable; got:\n${warned.map((l) => l.msg).join('\n')}`,
      );

      await b.restart();
      const back = await a.waitForPeer(b, 'connected again', (p) => p.status === 'connected', 3 * POLL_SECONDS * 1000);
      assert.equal(back.consecutiveFailures, 0);
      const afterReturn = logLines(a.log()).slice(linesBefore);
      const reachable = afterReturn.filter((l) => l.msg === 'peer reachable' && l.peer === b.name);
      assert.equal(reachable.length, 1, 'one line as it answered again');
      assert.equal(reachable[0]?.level, PINO_INFO);
      assert.ok((reachable[0]?.failures ?? 0) >= FAILED_POLLS, 'it says how many polls had failed');
      assert.equal(afterReturn.filter((l) => l.level >= PINO_WARN && l.msg.startsWith(failedProbe)).length, 2, 'no warning after the first two');
    },
  );
});
