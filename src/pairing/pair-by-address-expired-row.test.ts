/**
 * Pairing by address with a Hub this one sent a request to a day ago, which expired unanswered.
 * The sweep that drops it runs once a minute, so the row can still be here when the operator
 * pairs again. It used to be taken for a live request: the pairing was refused after the other
 * Hub had already spent its PIN. The Hub at the address is a fake answering as this build does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { Agent } from 'undici';
import type { NodeIdentity } from '../identity/node-identity.js';
import { openDatabase } from '../store/database.js';
import { PeerStore } from '../store/peers.js';
import { ManualClock } from '../util/clock.js';
import { AddressPairing } from './pair-by-address.js';
import { PAIRING_REQUEST_TTL_MS } from './pairing-service.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

const ME = 'hub-me.tail0.ts.net';
const FAR = 'hub-far.tail0.ts.net';
const ADDRESS = '192.168.77.10';

const publicKey = () => generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string;

describe('pairing by address after an earlier request to that Hub expired', () => {
  const theirs = { nodeUuid: randomUUID(), publicKey: publicKey() };
  const dispatcher = new Agent();
  let fake: Server;
  let port = 0;

  before(async () => {
    fake = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/api/inference/pool/identify') return void res.end(JSON.stringify({ isCiHub: true, poolProtocol: 2 }));
        if (req.url === '/api/inference/pool/pair/request') return void res.end(JSON.stringify({ received: true, nodeFqdn: FAR, ...theirs }));
        res.statusCode = 404;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    port = (fake.address() as AddressInfo).port;
  });
  after(async () => {
    await dispatcher.close();
    await new Promise<void>((resolve) => fake.close(() => resolve()));
  });

  it('sends the new request in place of the expired one, before the sweep has dropped it', async () => {
    const clock = new ManualClock();
    const store = new PeerStore(openDatabase(join(scratchDir('cihub-pairing-'), 'hub.db')));
    const expired = store.insert({
      nodeFqdn: FAR,
      direction: 'outbound',
      status: 'pending',
      peerNodeUuid: null,
      peerPublicKey: null,
      pinVerified: false,
      issuedTokenHash: null,
      presentTokenSealed: null,
      createdAt: new Date(clock.nowMs()).toISOString(),
      expiresAt: new Date(clock.nowMs() + PAIRING_REQUEST_TTL_MS).toISOString(),
    });
    clock.advance(PAIRING_REQUEST_TTL_MS);
    const mine = { nodeUuid: randomUUID(), publicKey: publicKey() };
    const pairing = new AddressPairing({
      store,
      identity: { load: async () => ({ ok: true, fingerprint: 'f', ...mine }) } as unknown as NodeIdentity,
      self: async () => ({ nodeFqdn: ME, tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'env' }),
      poolOff: () => null,
      resolve: async () => [{ address: ADDRESS, family: 4 }],
      addressOrigins: new Map([[ADDRESS, `http://127.0.0.1:${port}`]]),
      dispatcher,
      clock,
      logger: pino({ level: 'silent' }),
    });

    const { peer } = await pairing.pair(ADDRESS, '123456');
    assert.notEqual(peer.id, expired.id);
    assert.deepEqual(
      store.list().map((r) => [r.nodeFqdn, r.direction, r.status, r.peerNodeUuid]),
      [[FAR, 'outbound', 'pending', theirs.nodeUuid]],
      'one request, the new one, pinned to the key the answer carried',
    );
  });
});
