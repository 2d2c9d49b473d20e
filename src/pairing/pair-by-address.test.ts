/**
 * How a probe by address words a Hub that does not answer: the budget it waited, never the
 * legacy numeric code (23) of the timeout's DOMException; and, when nothing answers, which
 * HUB_HOST the other Hub needs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Agent } from 'undici';
import { HubError } from '../errors.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import type { PeerStore } from '../store/peers.js';
import { systemClock } from '../util/clock.js';
import { ADDRESS_PROBE_TIMEOUT_MS, AddressPairing } from './pair-by-address.js';
import { refusedPort } from '../../test/helpers/refused-port.js';

describe('probing an address whose listener never answers', () => {
  const NAME = 'hub-lan.home.arpa';
  const PORT = 5002;
  let silent: Server;
  const held: ServerResponse[] = [];
  let port = 0;
  const dispatcher = new Agent();
  before(async () => {
    silent = createServer((_req, res) => void held.push(res));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as AddressInfo).port;
  });
  after(async () => {
    for (const res of held) res.destroy();
    await dispatcher.close();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it(`says no Hub answered within ${ADDRESS_PROBE_TIMEOUT_MS / 1000} s on that port`, async () => {
    const pairing = new AddressPairing({
      store: {} as PeerStore,
      identity: {} as NodeIdentity,
      self: async () => ({ nodeFqdn: 'hub-me.tail0.ts.net', tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'env' }),
      poolOff: () => null,
      resolve: async () => [{ address: '192.168.77.2', family: 4 }],
      addressOrigins: new Map([[NAME, `http://127.0.0.1:${port}`]]),
      dispatcher,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
    });
    const err = await pairing.probe(`${NAME}:${PORT}`).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof HubError && err.code === 'HUB_ERR_NO_HUB_AT_ADDRESS', String(err));
    assert.match(err.message, new RegExp(`\\(${PORT}: no answer within ${ADDRESS_PROBE_TIMEOUT_MS / 1000} s\\)`));
  });
});

describe('probing an address where nothing listens', () => {
  const NAME = 'hub-lan.home.arpa';
  const dispatcher = new Agent();
  after(() => dispatcher.close());

  it('advises HUB_HOST=0.0.0.0, which keeps the loopback Tailscale Serve reaches, over the address alone, which would not', async () => {
    // Nothing listens there, so the probe is refused at once.
    const port = await refusedPort();
    const pairing = new AddressPairing({
      store: {} as PeerStore,
      identity: {} as NodeIdentity,
      self: async () => ({ nodeFqdn: 'hub-me.tail0.ts.net', tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'env' }),
      poolOff: () => null,
      resolve: async () => [{ address: '192.168.77.2', family: 4 }],
      addressOrigins: new Map([[NAME, `http://127.0.0.1:${port}`]]),
      dispatcher,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
    });
    const err = await pairing.probe(`${NAME}:5002`).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof HubError && err.code === 'HUB_ERR_NO_HUB_AT_ADDRESS', String(err));
    assert.match(err.message, /restart the other Hub with HUB_HOST=0\.0\.0\.0, which this machine can reach and which keeps 127\.0\.0\.1 for Tailscale Serve/);
    assert.match(err.message, /\(HUB_HOST=hub-lan\.home\.arpa alone would leave Serve unable to reach it\)/);
  });
});
