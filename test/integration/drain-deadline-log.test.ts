/**
 * A request still open when the 30 s drain runs out is cut, and its cut was recorded only as the
 * caller hanging up. The Hub now says first that the drain deadline closed it. The request here
 * is a POST whose body never finishes arriving, so it stays open for the whole drain (30 s of
 * wall time: the drain has no knob).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { logMessages, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { requestLeftOpen } from '../helpers/raw-http.js';
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
    socket = await requestLeftOpen(hub);
    const code = await hub.stop('SIGTERM');
    assert.equal(code, 0, hub.log());

    const msgs = logMessages(hub.log());
    const stopping = msgs.findIndex((m) => m.startsWith('hub stopping'));
    const cut = msgs.indexOf('drain deadline reached: closing 1 request(s) still open');
    const stopped = msgs.indexOf('hub stopped');
    assert.ok(stopping >= 0 && cut > stopping && stopped > cut, hub.log());
  });
});
