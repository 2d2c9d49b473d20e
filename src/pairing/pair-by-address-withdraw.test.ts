/**
 * The refusals of a pairing by address that come after the other Hub accepted the PIN (it names
 * itself only then): it has spent the PIN and stores a request, so this Hub takes the request
 * back with a signed unpair before refusing, and the refusal says whether that worked. The Hub
 * at the address is a fake that answers as a Hub of this build would and checks the signature
 * with the key the request carried. The stale-row refusal between real Hubs is in
 * test/integration/pair-by-address-withdraw.test.ts.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Agent } from 'undici';
import { HubError } from '../errors.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import { verifySignedRequest } from '../peer-auth/verify-signed.js';
import type { PeerStore } from '../store/peers.js';
import { systemClock } from '../util/clock.js';
import { AddressPairing } from './pair-by-address.js';

const ME = 'hub-me.tail0.ts.net';
const ADDRESS = '192.168.77.9';
const UNPAIR = '/api/inference/pool/pair/unpair';

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: publicKey.export({ format: 'jwk' }).x as string, sign: (data: Buffer) => sign(null, data, privateKey) };
}

describe('pairing by address, refused after the other Hub took the PIN', () => {
  const mine = { nodeUuid: randomUUID(), ...keyPair() };
  const theirs = { nodeUuid: randomUUID(), publicKey: keyPair().publicKey };
  /** What the fake Hub answers with its name, and how it answers the withdrawal. */
  let namesItself = 'hub-far.tail0.ts.net';
  let unpairStatus = 200;
  let requesterKey: string | null = null;
  /** Set when the fake takes the request: this Hub's identity rotation began while it was out. */
  let rotateWhenAsked = false;
  let rotating = false;
  let withdrawals: { recipient: string; verdict: ReturnType<typeof verifySignedRequest> }[] = [];
  let fake: Server;
  const dispatcher = new Agent();
  let pairing: AddressPairing;

  before(async () => {
    fake = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        res.setHeader('content-type', 'application/json');
        if (req.url === '/api/inference/pool/identify') return void res.end(JSON.stringify({ isCiHub: true, poolProtocol: 2 }));
        if (req.url === '/api/inference/pool/pair/request') {
          requesterKey = (JSON.parse(body.toString()) as { publicKey: string }).publicKey;
          rotating = rotateWhenAsked;
          return void res.end(JSON.stringify({ received: true, nodeFqdn: namesItself, ...theirs }));
        }
        if (req.url === UNPAIR) {
          const verdict = verifySignedRequest({
            headers: req.headers,
            method: 'POST',
            path: UNPAIR,
            body,
            myUuid: theirs.nodeUuid,
            nowMs: Date.now(),
            peerKey: (uuid) => (uuid === mine.nodeUuid ? requesterKey : null),
            nonces: { remember: () => true },
          });
          withdrawals.push({ recipient: String(req.headers['x-hub-pool-recipient']), verdict });
          res.statusCode = unpairStatus;
          return void res.end(JSON.stringify({ removed: unpairStatus === 200 }));
        }
        res.statusCode = 404;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const port = (fake.address() as AddressInfo).port;
    pairing = new AddressPairing({
      store: { byFqdn: () => null, byUuid: () => null, deleteExpiredPending: () => [] } as unknown as PeerStore,
      identity: { load: async () => ({ ok: true, fingerprint: 'f', ...mine }) } as unknown as NodeIdentity,
      self: async () => ({ nodeFqdn: ME, tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'env' }),
      poolOff: () => null,
      rotating: () => rotating,
      resolve: async () => [{ address: ADDRESS, family: 4 }],
      addressOrigins: new Map([[ADDRESS, `http://127.0.0.1:${port}`]]),
      dispatcher,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
    });
  });
  after(async () => {
    await dispatcher.close();
    await new Promise<void>((resolve) => fake.close(() => resolve()));
  });
  beforeEach(() => {
    withdrawals = [];
    unpairStatus = 200;
    rotateWhenAsked = false;
    rotating = false;
  });

  const refusal = async (): Promise<HubError> => {
    const err = await pairing.pair(ADDRESS, '123456').then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof HubError, String(err));
    return err;
  };
  const oneSignedWithdrawal = () => {
    assert.equal(withdrawals.length, 1, 'one withdrawal reached the Hub at the address');
    assert.equal(withdrawals[0]!.recipient, theirs.nodeUuid, 'addressed to the UUID it answered with');
    assert.deepEqual(withdrawals[0]!.verdict, { ok: true, senderUuid: mine.nodeUuid, senderFqdn: ME }, 'signed with the key the request carried');
  };

  it('withdraws the request before refusing a name on another tailnet', async () => {
    namesItself = 'hub-far.tail9.ts.net';
    const err = await refusal();
    assert.equal(err.code, 'HUB_ERR_PAIR_OUTSIDE_TAILNET');
    oneSignedWithdrawal();
    assert.match(
      err.message,
      /is hub-far\.tail9\.ts\.net, which is not on this Hub's tailnet \(tail0\.ts\.net\); the request was withdrawn there, and its PIN is spent;/,
    );
    assert.match(err.message, /mint a fresh PIN there \(cihub pool pairing-pin\) and pair again$/);
  });

  it("withdraws the request before refusing an answer with this Hub's own name", async () => {
    namesItself = ME;
    const err = await refusal();
    assert.equal(err.code, 'HUB_ERR_PAIR_SELF');
    oneSignedWithdrawal();
    assert.match(err.message, /is this Hub itself .*; the request was withdrawn there, and its PIN is spent$/);
  });

  it('says a request waits there to be rejected when the withdrawal is refused', async () => {
    namesItself = 'hub-far.tail9.ts.net';
    unpairStatus = 401;
    const err = await refusal();
    oneSignedWithdrawal();
    assert.match(
      err.message,
      /the request could not be withdrawn there \(HTTP 401\), so it waits there until its operator rejects it \(cihub pool reject hub-me\.tail0\.ts\.net on that Hub\), and its PIN is spent/,
    );
  });

  it('withdraws the request when this Hub began rotating its identity key while the request was out', async () => {
    namesItself = 'hub-far.tail0.ts.net';
    rotateWhenAsked = true;
    const err = await refusal();
    assert.equal(err.code, 'HUB_ERR_CONFLICT');
    oneSignedWithdrawal();
    assert.match(
      err.message,
      /began rotating its identity key while the request was out; the request was withdrawn there, and its PIN is spent; once the rotation has finished, mint a fresh PIN/,
    );
  });

  it('sends nothing while a rotation is already running', async () => {
    rotating = true;
    const err = await refusal();
    assert.equal(err.code, 'HUB_ERR_CONFLICT');
    assert.match(err.message, /rotating its identity key/);
    assert.equal(withdrawals.length, 0);
  });
});
