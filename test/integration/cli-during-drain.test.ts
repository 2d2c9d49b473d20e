/**
 * The CLI asked about a Hub that is shutting down: the Hub has closed its listener and is
 * finishing a request, so the call is refused while the process hub.json names still runs. The
 * CLI said the Hub was not running and to start it, and `cihub serve` then refused the data dir
 * the draining Hub still held (audit, 2026-12-07). It now says the Hub is most likely shutting down.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { eventually, logMessages, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { requestLeftOpen } from '../helpers/raw-http.js';

describe('the CLI while the Hub drains', () => {
  let hub: HubProcess;
  let socket: Socket | null = null;
  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    socket?.destroy();
    await hub.stop('SIGKILL');
  });

  it('says the Hub is most likely shutting down, not that it is not running, and exits 3', async () => {
    // A request whose body stops short holds the drain open.
    const open = await requestLeftOpen(hub);
    socket = open;
    const exited = hub.stop('SIGTERM');
    await eventually(() => logMessages(hub.log()).some((m) => m.startsWith('hub stopping')), 'the Hub to start draining');

    const status = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.equal(status.code, 3, status.stderr);
    assert.match(status.stderr, new RegExp(`process \\(pid ${hub.child.pid}\\) is still running, but nothing answered at .*: it is most likely shutting down`));
    assert.doesNotMatch(status.stderr, /is not running/);

    open.destroy();
    assert.equal(await exited, 0, hub.log());
  });
});
