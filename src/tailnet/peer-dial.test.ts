/**
 * Issue 9, #19: a pairing call to a peer name is dialled only at a private address. The peer
 * client is built as system.ts builds it, with a resolver standing in for DNS; the development
 * dial map (HUB_POOL_PEER_ORIGINS, loopback by design) keeps working.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { Agent } from 'undici';
import { PeerClient } from '../peers/peer-client.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import { DEFAULT_SETTINGS } from '../config/settings-schema.js';
import { systemClock } from '../util/clock.js';
import { privateOnlyAgent } from './pinned-dial.js';
import { parsePeerOrigins } from './peer-origins.js';

describe('pairing dials to a peer name', () => {
  let server: Server;
  let port: number;
  const seen: string[] = [];
  const dispatcher = new Agent();
  // DNS as an attacker would arrange it: the name a pair request gives resolves to this machine.
  const nameDispatcher = privateOnlyAgent(async () => [{ address: '127.0.0.1', family: 4 }], 1_000);
  before(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{"received":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    await dispatcher.close();
    await nameDispatcher.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = (originsRaw: string | null) =>
    new PeerClient({
      identity: {} as NodeIdentity,
      selfName: async () => 'hub-a.tail0.ts.net',
      origins: parsePeerOrigins(originsRaw).map,
      dispatcher,
      nameDispatcher,
      settings: () => DEFAULT_SETTINGS,
      clock: systemClock,
    });

  it('refuses to dial a name that resolves to loopback, and says why', async () => {
    const answer = await client(null).call(
      { nodeFqdn: 'evil.tail0.ts.net' },
      'POST',
      '/api/inference/pool/pair/request',
      { token: 'x' },
      { timeoutMs: 2_000, auth: 'none' },
    );
    assert.equal(answer.ok, false);
    assert.match(answer.ok ? '' : answer.error, /^not dialled: evil\.tail0\.ts\.net resolves to 127\.0\.0\.1, and is loopback/);
    assert.deepEqual(seen, []);
  });

  it('still dials a name the development map sends to loopback', async () => {
    const answer = await client(`hub-b.tail0.ts.net=http://127.0.0.1:${port}`).call(
      { nodeFqdn: 'hub-b.tail0.ts.net' },
      'POST',
      '/api/inference/pool/pair/request',
      { token: 'x' },
      { timeoutMs: 2_000, auth: 'none' },
    );
    assert.equal(answer.ok, true);
    assert.deepEqual(seen, ['/api/inference/pool/pair/request']);
  });
});
