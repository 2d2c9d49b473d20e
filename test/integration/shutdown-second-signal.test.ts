/**
 * A second signal while a Hub drains: Ctrl-C pressed again, or a supervisor that repeats
 * SIGTERM. It ends the drain at once instead of waiting out the 30 s, and the stop still runs to
 * its end (exit 0, hub.json removed, "hub stopped" logged), whichever of SIGTERM and SIGINT
 * came first. The request held open here is a POST whose body never finishes arriving, so only
 * the drain's end can close it.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { eventually, logMessages, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { requestLeftOpen } from '../helpers/raw-http.js';

describe('a second signal while the Hub drains', () => {
  let hub: HubProcess | null = null;
  let socket: Socket | null = null;
  afterEach(async () => {
    socket?.destroy();
    await hub?.stop('SIGKILL');
  });

  for (const [first, second] of [
    ['SIGTERM', 'SIGTERM'],
    ['SIGINT', 'SIGINT'],
    ['SIGTERM', 'SIGINT'],
  ] as const) {
    it(`${first} then ${second}: closes the request still open at once, and stops cleanly with exit 0`, async () => {
      const started = await startHubProcess();
      hub = started;
      socket = await requestLeftOpen(started);
      const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
      started.child.kill(first);
      await eventually(() => logMessages(started.log()).some((m) => m.startsWith('hub stopping')), 'the drain to begin');
      started.child.kill(second);
      assert.equal(await exited, 0, started.log());

      const msgs = logMessages(started.log());
      const cut = msgs.indexOf('drain cut short: closing 1 request(s) still open');
      const stopped = msgs.indexOf('hub stopped');
      assert.ok(cut >= 0 && stopped > cut, started.log());
      assert.ok(!msgs.some((m) => m.startsWith('drain deadline reached')), 'the drain did not run to its deadline');
      assert.equal(existsSync(join(started.dataDir, 'hub.json')), false, 'hub.json is removed on the way out');
    });
  }
});
