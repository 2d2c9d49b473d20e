/**
 * A request still open when the 30 s drain runs out is cut, and its cut was recorded only as the
 * caller hanging up. The Hub now says first that the drain deadline closed it. The request here
 * is a POST whose body never finishes arriving, so it stays open for the whole drain (30 s of
 * wall time: the drain has no knob).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { eventually, logMessages, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

describe('SIGTERM with a request that outlasts the drain', () => {
  let hub: HubProcess;
  let socket: Socket | null = null;
  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    socket?.destroy();
    await hub.stop('SIGKILL');
  });

  it('logs that the drain deadline closed it, before "hub stopped"', { timeout: scaled(90_000) }, async () => {
    const { hostname, port } = new URL(hub.url);
    const open = connect(Number(port), hostname);
    socket = open;
    await new Promise<void>((resolve, reject) => open.once('connect', resolve).once('error', reject));
    open.on('error', () => undefined);
    let received = '';
    open.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    // Expect: 100-continue makes Node answer "100 Continue" as it hands the request to the Hub,
    // so seeing it means the Hub counts a request in progress. The body then stops short.
    open.write(
      `POST /api/inference/pool/api/chat HTTP/1.1\r\nHost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: 100\r\nexpect: 100-continue\r\n\r\n`,
    );
    await eventually(() => received.startsWith('HTTP/1.1 100 Continue'), 'the Hub to take the request');
    open.write('{"model":');
    const code = await hub.stop('SIGTERM');
    assert.equal(code, 0, hub.log());

    const msgs = logMessages(hub.log());
    const stopping = msgs.findIndex((m) => m.startsWith('hub stopping'));
    const cut = msgs.indexOf('drain deadline reached: closing 1 request(s) still open');
    const stopped = msgs.indexOf('hub stopped');
    assert.ok(stopping >= 0 && cut > stopping && stopped > cut, hub.log());
  });
});
