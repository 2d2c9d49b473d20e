/**
 * SSRF through probing and pairing by address (issue 15, item 2; issue 9, #19). Two parts:
 *
 * - A real Hub asked, by its operator route, to probe loopback, metadata and unspecified
 *   addresses in every spelling a resolver or an address parser accepts (decimal, hex, octal,
 *   short IPv4, IPv4-mapped IPv6, trailing-dot names): each is refused with
 *   HUB_ERR_ADDRESS_REFUSED, and a listener on loopback at the port named is never dialled.
 * - The pairing by address itself (src/pairing/pair-by-address.ts, the class the Hub runs) with
 *   a resolver whose answer changes between the probe's check and the pairing call, the one that
 *   carries this Hub's token out. The resolver is the seam the Hub takes (system.ts passes the
 *   system resolver); the address reaches a loopback stand-in for the LAN Hub through the
 *   development dial map, while the checks run on what the resolver says. A name rebound to
 *   loopback after a good probe gets no token; a name with one loopback answer among private
 *   ones is not dialled at all. Pinning a connection to the checked address is
 *   src/tailnet/pinned-dial.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Agent } from 'undici';
import { HubError } from '../../src/errors.js';
import type { NodeIdentity } from '../../src/identity/node-identity.js';
import { AddressPairing } from '../../src/pairing/pair-by-address.js';
import type { PeerRow, PeerStore } from '../../src/store/peers.js';
import type { Resolver } from '../../src/tailnet/private-address.js';
import { fqdn, POOL, reservePorts, startNamedHub, SUFFIX, type HubProcess } from './pairing-fixtures.js';

/** A listener on loopback that counts every request, answering as a Hub would. */
async function listen(
  handler: (req: IncomingMessage, body: string) => { status: number; body: unknown },
): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      const answer = handler(req, body);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

describe('probing addresses that lead back into the machine', () => {
  let hub: HubProcess;
  let trap: Awaited<ReturnType<typeof listen>>;

  before(async () => {
    trap = await listen(() => ({ status: 200, body: { isCiHub: true, poolProtocol: 2 } }));
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('hub-ssrf'), port: ports.hub, origins: {} });
  });
  after(async () => {
    await hub?.stop();
    trap?.server.close();
  });

  const spellings = (port: number): string[] => [
    `127.0.0.1:${port}`,
    `127.1:${port}`,
    `2130706433:${port}`,
    `0x7f000001:${port}`,
    `0177.0.0.1:${port}`,
    `localhost:${port}`,
    `LOCALHOST.:${port}`,
    `[::1]:${port}`,
    `[::ffff:127.0.0.1]:${port}`,
    `[::ffff:7f00:1]:${port}`,
    `[0:0:0:0:0:ffff:7f00:1]:${port}`,
    `0.0.0.0:${port}`,
    `[::]:${port}`,
    `169.254.169.254:${port}`,
    `[::ffff:a9fe:a9fe]:${port}`,
    `[fd00:ec2::254]:${port}`,
    `100.100.100.200:${port}`,
    `100.100.100.100:${port}`,
  ];

  it('refuses every spelling of loopback, metadata and unspecified, and dials none of them', async () => {
    for (const address of spellings(trap.port)) {
      const res = await hub.api<{ error?: { code?: string; message?: string } }>('POST', `${POOL}/peers/probe`, { address });
      assert.ok(res.status >= 400 && res.status < 500, `${address}: ${res.status} ${JSON.stringify(res.json)}`);
      assert.equal(res.json.error?.code, 'HUB_ERR_ADDRESS_REFUSED', `${address}: ${JSON.stringify(res.json)}`);
    }
    assert.deepEqual(trap.seen, [], 'the loopback listener was never asked');
  });
});

describe('a DNS answer that changes between the check and the call that carries the token', () => {
  const NAME = 'hub-lan.home.arpa';
  const PORT = 5002;
  const me = generateKeyPairSync('ed25519');
  const theirs = { nodeUuid: randomUUID(), publicKey: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string };
  let target: Awaited<ReturnType<typeof listen>>;
  let dispatcher: Agent;

  before(async () => {
    target = await listen((req) =>
      req.url === `${POOL}/identify`
        ? { status: 200, body: { isCiHub: true, poolProtocol: 2 } }
        : { status: 200, body: { received: true, nodeFqdn: fqdn('hub-lan'), ...theirs } },
    );
    dispatcher = new Agent();
  });
  after(async () => {
    target?.server.close();
    await dispatcher?.close();
  });

  /** The pairing as the Hub builds it, with `resolve` as its resolver and the LAN name mapped to the loopback stand-in. */
  function pairing(resolve: Resolver, inserted: PeerRow[]): AddressPairing {
    const identity = {
      load: async () => ({
        ok: true,
        nodeUuid: randomUUID(),
        publicKey: me.publicKey.export({ format: 'jwk' }).x,
        fingerprint: 'fp',
        sign: () => Buffer.alloc(64),
      }),
    } as unknown as NodeIdentity;
    const store = {
      byFqdn: () => null,
      byUuid: () => null,
      deleteExpiredPending: () => [],
      insert: (row: PeerRow) => (inserted.push(row), row),
    } as unknown as PeerStore;
    return new AddressPairing({
      store,
      identity,
      self: async () => ({ nodeFqdn: fqdn('hub-me'), tailnetSuffix: SUFFIX, tailscaleConnected: true, source: 'env' }),
      poolOff: () => null,
      resolve,
      addressOrigins: new Map([[NAME, `http://127.0.0.1:${target.port}`]]),
      dispatcher,
      clock: { nowMs: () => Date.now() },
      logger: pino({ level: 'silent' }),
    });
  }

  const answers = (...seq: string[][]): Resolver => {
    let asked = 0;
    return async () => seq[Math.min(asked++, seq.length - 1)]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const requestsSeen = () => target.seen.filter((s) => s.endsWith('/pair/request')).length;

  it('pairs when the name keeps resolving to a private address (the control)', async () => {
    const inserted: PeerRow[] = [];
    const before = requestsSeen();
    const result = await pairing(answers(['192.168.77.2']), inserted).pair(`${NAME}:${PORT}`, '123456');
    assert.equal(result.peer.nodeFqdn, fqdn('hub-lan'));
    assert.equal(requestsSeen(), before + 1);
    assert.equal(inserted.length, 1);
  });

  for (const [what, rebound] of [
    ['loopback', ['127.0.0.1']],
    ['IPv6 loopback', ['::1']],
    ['the metadata endpoint', ['169.254.169.254']],
    ['a private address beside a loopback one', ['192.168.77.2', '127.0.0.1']],
  ] as const) {
    it(`sends no pairing request (and no token) when the name is rebound to ${what} after a good probe`, async () => {
      const inserted: PeerRow[] = [];
      const seenBefore = target.seen.length;
      const err = await pairing(answers(['192.168.77.2'], [...rebound]), inserted)
        .pair(`${NAME}:${PORT}`, '123456')
        .then(
          () => null,
          (e: unknown) => e,
        );
      assert.ok(err instanceof HubError, `refused: ${String(err)}`);
      assert.equal(err.code, 'HUB_ERR_ADDRESS_REFUSED');
      assert.deepEqual(target.seen.slice(seenBefore), [`GET ${POOL}/identify`], 'the probe was answered, the pairing request never sent');
      assert.deepEqual(inserted, []);
    });
  }

  it('dials nothing when one of the answers is loopback from the start', async () => {
    const seenBefore = target.seen.length;
    const err = await pairing(answers(['192.168.77.2', '127.0.0.1']), [])
      .probe(`${NAME}:${PORT}`)
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof HubError && err.code === 'HUB_ERR_ADDRESS_REFUSED', String(err));
    assert.equal(target.seen.length, seenBefore, 'nothing reached the listener');
  });
});
