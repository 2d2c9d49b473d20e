/**
 * Two Hubs still on bearer tokens both move to signed requests on their health polls, and their
 * two POST /pair/upgrade calls can cross: the peer's request pins the peer's key on this Hub's
 * row (learned from a request, so with a grace window) while this Hub's own upgrade is still out.
 * The answer to that upgrade is a response all the same: the peer has taken this Hub's key, so
 * this side signs from then on (docs/peer-protocol.md, "Upgrade and grace"). Staying in the
 * window left both Hubs presenting bearer tokens, neither signing, until both windows rolled back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import type { NodeIdentity } from '../identity/node-identity.js';
import type { PairingService } from '../pairing/pairing-service.js';
import { openDatabase } from '../store/database.js';
import { insertBearerOnly } from '../store/peer-row.fixture.js';
import { PeerStore } from '../store/peers.js';
import { Background } from '../util/background.js';
import { ManualClock } from '../util/clock.js';
import { outboundAuthMode } from './auth-mode.js';
import { HealthPoller } from './health-poller.js';
import type { PeerClient } from './peer-client.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

/** A real Ed25519 public key in the one spelling a pairing body may carry. */
const publicKey = (): string => generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string;
const SELF = { nodeUuid: '11111111-1111-4111-8111-111111111111', publicKey: publicKey() };
const PEER = { nodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d', publicKey: publicKey() };
const OTHER = { nodeUuid: '3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d', publicKey: publicKey() };

/**
 * A poller over a real store with one bearer-only pairing. The peer reports its UUID on
 * /capabilities; `beforeAnswer` runs while this Hub's upgrade is out (the peer's crossing call
 * landing here), then the peer answers the upgrade with `answer`.
 */
function crossing(answer: { nodeUuid: string; publicKey: string }, beforeAnswer: (store: PeerStore, rowId: string) => void) {
  const clock = new ManualClock();
  const store = new PeerStore(openDatabase(join(scratchDir('cihub-upgrade-'), 'hub.db')));
  const row = insertBearerOnly(store, { nodeFqdn: 'peer.tail0.ts.net', direction: 'outbound', createdAt: new Date(clock.nowMs()).toISOString() });
  const client = {
    call: async (_peer: unknown, _method: string, path: string) => {
      if (path.endsWith('/capabilities'))
        return {
          ok: true,
          status: 200,
          headers: {},
          json: { nodeUuid: PEER.nodeUuid, backends: [], inFlightRequests: 0, acceptingWork: true },
          auth: 'bearer',
        };
      beforeAnswer(store, row.id);
      return { ok: true, status: 200, headers: {}, json: answer, auth: 'bearer' };
    },
  } as unknown as PeerClient;
  const poller = new HealthPoller({
    store,
    client,
    pairing: { sweep: () => [], notesOn: () => ({ approvedThereAt: null, confirming: false }) } as unknown as PairingService,
    identity: { load: async () => ({ ok: true, ...SELF, fingerprint: 'f', sign: () => Buffer.alloc(64) }) } as unknown as NodeIdentity,
    pollSeconds: () => 30,
    clock,
    logger: pino({ level: 'silent' }),
    forwardsTo: () => 0,
    background: new Background({ logger: pino({ level: 'silent' }), clock }),
  });
  const graceUntil = new Date(clock.nowMs() + 10 * 60_000).toISOString();
  return { store, poller, rowId: row.id, graceUntil };
}

describe('HealthPoller: upgrade calls that cross', () => {
  it("signs at once when the peer's own upgrade pinned its key here while this Hub's was out", async () => {
    const { store, poller, rowId, graceUntil } = crossing(PEER, (s, id) => {
      s.update(id, { peerNodeUuid: PEER.nodeUuid, peerPublicKey: PEER.publicKey, bearerGraceUntil: graceUntil });
    });
    await poller.probe(store.get(rowId)!);
    const after = store.get(rowId)!;
    assert.deepEqual([after.peerNodeUuid, after.peerPublicKey, after.bearerGraceUntil], [PEER.nodeUuid, PEER.publicKey, null]);
    assert.equal(outboundAuthMode(after, false), 'signed');
  });

  it('keeps the pin the crossing request made when the answer names another key, and signs with neither', async () => {
    const { store, poller, rowId, graceUntil } = crossing({ nodeUuid: PEER.nodeUuid, publicKey: OTHER.publicKey }, (s, id) => {
      s.update(id, { peerNodeUuid: PEER.nodeUuid, peerPublicKey: PEER.publicKey, bearerGraceUntil: graceUntil });
    });
    await poller.probe(store.get(rowId)!);
    const after = store.get(rowId)!;
    assert.deepEqual([after.peerNodeUuid, after.peerPublicKey, after.bearerGraceUntil], [PEER.nodeUuid, PEER.publicKey, graceUntil]);
    assert.equal(outboundAuthMode(after, false), 'bearer');
  });

  it("pins nothing when the answer names this Hub's own UUID", async () => {
    const { store, poller, rowId } = crossing({ nodeUuid: SELF.nodeUuid, publicKey: OTHER.publicKey }, () => {});
    await poller.probe(store.get(rowId)!);
    const after = store.get(rowId)!;
    assert.deepEqual([after.peerNodeUuid, after.peerPublicKey], [null, null]);
  });

  it('pins nothing when another pairing already holds the UUID the answer names', async () => {
    const { store, poller, rowId } = crossing(OTHER, (s) => {
      if (s.byUuid(OTHER.nodeUuid) === null)
        s.insert({
          nodeFqdn: 'other.tail0.ts.net',
          direction: 'outbound',
          status: 'connected',
          peerNodeUuid: OTHER.nodeUuid,
          peerPublicKey: OTHER.publicKey,
          pinVerified: true,
          issuedTokenHash: null,
          presentTokenSealed: null,
          createdAt: new Date(0).toISOString(),
          expiresAt: null,
        });
    });
    await poller.probe(store.get(rowId)!);
    const after = store.get(rowId)!;
    assert.deepEqual([after.peerNodeUuid, after.peerPublicKey], [null, null]);
  });
});
