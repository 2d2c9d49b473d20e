/**
 * The CLI asked about a Hub that is shutting down: the Hub has closed its listener and is
 * finishing a request, so the call is refused while the process hub.json names still runs. The
 * CLI said the Hub was not running and to start it, and `cihub serve` then refused the data dir
 * the draining Hub still held (audit, 2026-12-07). It now says the Hub is most likely shutting down.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { eventually, logMessages, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

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
    const { hostname, port } = new URL(hub.url);
    const open = connect(Number(port), hostname);
    socket = open;
    await new Promise<void>((resolve, reject) => open.once('connect', resolve).once('error', reject));
    open.on('error', () => undefined);
    let received = '';
    open.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    // A request whose body stops short holds the drain open (drain-deadline-log.test.ts does the same).
    open.write(
      `POST /api/inference/pool/api/chat HTTP/1.1\r\nHost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: 100\r\nexpect: 100-continue\r\n\r\n`,
    );
    await eventually(() => received.startsWith('HTTP/1.1 100 Continue'), 'the Hub to take the request');
    open.write('{"model":');
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
