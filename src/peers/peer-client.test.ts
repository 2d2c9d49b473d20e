/**
 * A peer call's budget, and how running out of it reads. It covers the connection: a tailnet
 * machine that is switched off drops SYNs, and a discovery probe or a leaving notice must give up
 * at its own budget, not at undici's 10 s connect default. However the budget ran out, the call
 * says so in the same words, which discovery's notHubs and peer health show.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { synDroppingPort, type SynDroppingPort } from '../../test/helpers/syn-dropping-port.js';
import { DEFAULT_SETTINGS } from '../config/settings-schema.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import { systemClock } from '../util/clock.js';
import { PeerClient } from './peer-client.js';

const PEER = 'off.tail0.ts.net';

describe('a peer call to a machine that drops SYNs', () => {
  let dropping: SynDroppingPort;
  before(async () => {
    dropping = await synDroppingPort();
  });
  after(() => dropping.close());

  it('answers "no answer" at its own budget while the connection is still being made, and the abandoned connection fails unheard', async () => {
    // The Hub's Agents leave undici's 10 s connect timeout; 2 s here only shortens the wait for
    // the abandoned connection to end, and stays well past the call's 300 ms budget.
    const connector = buildConnector({ timeout: 2_000 });
    const connection = new EventEmitter();
    let connectionEnded = false;
    const dispatcher = new Agent({
      connect: (opts, callback) =>
        connector(opts, (...args) => {
          connectionEnded = true;
          connection.emit('ended');
          callback(...args);
        }),
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const client = new PeerClient({
        identity: {} as NodeIdentity,
        selfName: async () => 'self.tail0.ts.net',
        origins: new Map([[PEER, `http://127.0.0.1:${dropping.port}`]]),
        dispatcher,
        nameDispatcher: dispatcher,
        settings: () => DEFAULT_SETTINGS,
        clock: systemClock,
      });
      const ended = once(connection, 'ended');
      const answer = await client.call({ nodeFqdn: PEER }, 'POST', '/api/inference/pool/leaving', { reason: 'shutdown' }, { timeoutMs: 300, auth: 'none' });
      // The call's own deadline answered, not undici's connect timeout (UND_ERR_CONNECT_TIMEOUT).
      assert.deepEqual(answer, { ok: false, error: 'no answer within 0.3 s', auth: 'none', unsent: null });
      assert.equal(connectionEnded, false, 'the connection was still being made when the call answered');
      await ended;
      // A rejection nobody handles is reported once the microtasks drain, before the next turn.
      await nextTurn();
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await dispatcher.destroy();
    }
  });
});

describe('a peer call to a peer that takes the connection and then says nothing', () => {
  let server: Server;
  let origin: string;
  const dispatcher = new Agent();
  before(async () => {
    server = createServer((req, res) => {
      // /silent never answers; /stalled sends its headers and the start of a body, then nothing.
      if (req.url === '/stalled') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"status":');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await dispatcher.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = () =>
    new PeerClient({
      identity: {} as NodeIdentity,
      selfName: async () => 'self.tail0.ts.net',
      origins: new Map([['quiet.tail0.ts.net', origin]]),
      dispatcher,
      nameDispatcher: dispatcher,
      settings: () => DEFAULT_SETTINGS,
      clock: systemClock,
    });

  for (const path of ['/silent', '/stalled'])
    it(`says there was no answer within the budget (${path}), not that the fetch failed`, async () => {
      const answer = await client().call({ nodeFqdn: 'quiet.tail0.ts.net' }, 'GET', path, undefined, { timeoutMs: 300, auth: 'none' });
      assert.deepEqual(answer, { ok: false, error: 'no answer within 0.3 s', auth: 'none', unsent: null });
    });
});
