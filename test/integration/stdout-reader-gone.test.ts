/**
 * A Hub whose stdout reader goes away keeps running (the project's rule: nothing in the
 * background may end the process). The next log line's write fails with EPIPE, which Node emits
 * as an 'error' event on stdout; with no listener that ended the Hub. Seen with
 * `cihub serve | head -n 1`, and what a journald restart does to a service's stdout.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { LOG_FILE, logDir } from '../../src/logs/log-file.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

describe('a Hub whose stdout reader went away', () => {
  let hub: HubProcess | null = null;
  after(async () => {
    await hub?.stop();
  });

  it('keeps logging to its file and keeps answering', async () => {
    hub = await startHubProcess();
    const h = hub;
    // The test is the reader of the Hub's stdout and stderr: closing them breaks both pipes.
    h.child.stdout!.destroy();
    h.child.stderr!.destroy();
    const logged = (n: number) => readFileSync(join(logDir(h.dataDir), LOG_FILE), 'utf8').split('pool settings changed').length - 1 >= n;
    // Two log lines after the close: the first write's EPIPE is emitted before the second request is taken.
    for (const [n, value] of [
      [1, 2],
      [2, 3],
    ] as const) {
      const patch = await h.api('PATCH', '/api/inference/pool/settings', { poolLocalAffinity: value });
      assert.equal(patch.status, 200, JSON.stringify(patch.json));
      await eventually(() => logged(n), `settings change ${n} in the log file`);
    }
    const health = await request(`${h.url}/healthz`);
    await health.body.text();
    assert.equal(health.statusCode, 200);
    assert.equal(h.child.exitCode, null, 'the Hub is still running');
  });
});
