/**
 * The 30 s drain after SIGTERM is 30 s of time, whatever the wall clock is set to meanwhile. It
 * was a deadline on the wall clock: NTP setting the clock back during the drain held the exit for
 * as long as the step (far past the supervisor's 45 s kill, deploy/cihub.service), and setting it
 * forward cut every request still open at once. Two real Hubs, each with a request left open (a
 * POST whose body never finishes, so the drain runs to its deadline) and a wall clock shifted
 * while it drains (helpers/skewed-clock.ts, preloaded): one an hour forward, one two hours back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { SHUTDOWN_DRAIN_TIMEOUT_MS } from '../../src/system.js';
import { eventually, freshDataDir, logMessages, REPO_ROOT, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { requestLeftOpen } from '../helpers/raw-http.js';
import { scaled } from '../helpers/time-scale.js';

/** The supervisor's stop timeout: every deploy file allows 45 s (docs/deploy.md). */
const SUPERVISOR_KILL_MS = 45_000;
const DEADLINE_LINE = 'drain deadline reached: closing 1 request(s) still open';

interface SteppedHub {
  readonly hub: HubProcess;
  readonly skewFile: string;
  readonly socket: Socket;
}

async function startSteppedHub(): Promise<SteppedHub> {
  const skewFile = join(freshDataDir(), 'skew-ms');
  writeFileSync(skewFile, '0');
  const hub = await startHubProcess({
    env: { NODE_OPTIONS: `--import=${join(REPO_ROOT, 'dist/test/helpers/skewed-clock.js')}`, CIHUB_TEST_CLOCK_SKEW_FILE: skewFile },
  });
  return { hub, skewFile, socket: await requestLeftOpen(hub) };
}

interface Timed {
  readonly drainMs: number | null;
  readonly exitMs: number | null;
  readonly code: number | null;
  /** Why the drain was not timed (it never reached its deadline line); null when it was. */
  readonly error: string | null;
}

/** Sends SIGTERM, shifts the wall clock by `stepMs` once the drain has begun, and times the drain and the exit from SIGTERM. */
async function drainThroughStep(h: SteppedHub, stepMs: number): Promise<{ drainMs: number; exitMs: number; code: number | null }> {
  const sentAt = performance.now();
  const exited = h.hub.stop('SIGTERM').then((code) => ({ code, at: performance.now() }));
  // The drain's deadline is taken in the same turn as this line is written.
  await eventually(() => logMessages(h.hub.log()).some((m) => m.startsWith('hub stopping')), 'the drain to begin');
  writeFileSync(h.skewFile, String(stepMs));
  await eventually(() => logMessages(h.hub.log()).includes(DEADLINE_LINE), 'the drain deadline', SUPERVISOR_KILL_MS);
  const drainMs = performance.now() - sentAt;
  const { code, at } = await exited;
  return { drainMs, exitMs: at - sentAt, code };
}

describe('SIGTERM while the wall clock is set during the drain', () => {
  let forward: SteppedHub;
  let back: SteppedHub;
  before(async () => {
    [forward, back] = await Promise.all([startSteppedHub(), startSteppedHub()]);
  });
  after(async () => {
    for (const h of [forward, back]) {
      h?.socket.destroy();
      await h?.hub.stop('SIGKILL');
    }
  });

  it(
    'drains for its 30 s whichever way the clock moves: forward does not cut the requests at once, back does not hold the exit past the kill',
    { timeout: scaled(3 * SUPERVISOR_KILL_MS) },
    async () => {
      // Both drains run at once, and each is judged whatever became of the other.
      const [ahead, behind] = (await Promise.allSettled([drainThroughStep(forward, 60 * 60_000), drainThroughStep(back, -2 * 60 * 60_000)])).map((r) => {
        if (r.status === 'rejected') return { drainMs: null, exitMs: null, code: null, error: String(r.reason) };
        return { ...r.value, error: null };
      }) as [Timed, Timed];

      assert.equal(ahead.error, null, forward.hub.log());
      assert.ok(
        ahead.drainMs! >= SHUTDOWN_DRAIN_TIMEOUT_MS,
        `clock set forward: the drain ended ${Math.round(ahead.drainMs!)} ms after SIGTERM\n${forward.hub.log()}`,
      );
      assert.equal(ahead.code, 0, forward.hub.log());

      assert.equal(behind.error, null, `clock set back: ${behind.error}\n${back.hub.log()}`);
      assert.ok(behind.drainMs! >= SHUTDOWN_DRAIN_TIMEOUT_MS, back.hub.log());
      assert.ok(
        behind.exitMs! < scaled(SUPERVISOR_KILL_MS),
        `clock set back: the Hub exited ${Math.round(behind.exitMs!)} ms after SIGTERM\n${back.hub.log()}`,
      );
      assert.equal(behind.code, 0, back.hub.log());
    },
  );
});
