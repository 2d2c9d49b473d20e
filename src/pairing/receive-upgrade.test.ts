/**
 * The receiving side of POST /pair/upgrade (spec, "Upgrading an existing bearer pairing"): a
 * bearer-only peer hands over its node UUID and key. This Hub learns them from a request, so it
 * cannot know its answer arrived: it pins them, keeps presenting its bearer token, and opens a
 * grace window of ten minutes or four health polls, whichever is longer. A claim of this Hub's
 * own UUID, or of one another pairing holds, pins nothing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import type { NodeIdentity } from '../identity/node-identity.js';
import { outboundAuthMode } from '../peers/auth-mode.js';
import { openDatabase } from '../store/database.js';
import { insertBearerOnly } from '../store/peer-row.fixture.js';
import { PeerStore, type PeerRow } from '../store/peers.js';
import { ManualClock } from '../util/clock.js';
import { PairingService, type PairingDeps } from './pairing-service.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

const publicKey = (): string => generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string;
const SELF = { nodeUuid: '11111111-1111-4111-8111-111111111111', publicKey: publicKey() };
const PEER = { nodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d', publicKey: publicKey() };

function setup(pollSeconds = 30) {
  const clock = new ManualClock();
  const store = new PeerStore(openDatabase(join(scratchDir('cihub-upgrade-'), 'hub.db')));
  const identity = { load: async () => ({ ok: true, ...SELF, fingerprint: 'f', sign: () => Buffer.alloc(64) }) } as unknown as NodeIdentity;
  const pairing = new PairingService({ store, identity, clock, pollSeconds: () => pollSeconds, logger: pino({ level: 'silent' }) } as unknown as PairingDeps);
  const bearerOnly = (name: string, extra: Partial<PeerRow> = {}): PeerRow =>
    insertBearerOnly(store, { nodeFqdn: name, direction: 'inbound', createdAt: new Date(clock.nowMs()).toISOString() }, extra);
  return { clock, store, pairing, bearerOnly };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
  return 'accepted';
}

describe('POST /pair/upgrade, received', () => {
  for (const [pollSeconds, graceMinutes] of [
    [30, 10],
    [300, 20],
  ] as const)
    it(`pins the key, answers with this Hub's identity, and keeps bearer for ${graceMinutes} minutes at ${pollSeconds} s polls`, async () => {
      const { clock, store, pairing, bearerOnly } = setup(pollSeconds);
      const row = bearerOnly('peer.tail0.ts.net');
      assert.deepEqual(await pairing.receiveUpgrade(row, PEER), SELF);
      const after = store.get(row.id)!;
      assert.deepEqual([after.peerNodeUuid, after.peerPublicKey], [PEER.nodeUuid, PEER.publicKey]);
      assert.equal(after.bearerGraceUntil, new Date(clock.nowMs() + graceMinutes * 60_000).toISOString());
      assert.equal(outboundAuthMode(after, false), 'bearer', 'learned from a request: this Hub still presents its token');
    });

  it("refuses a claim of this Hub's own node UUID and pins nothing", async () => {
    const { store, pairing, bearerOnly } = setup();
    const row = bearerOnly('peer.tail0.ts.net');
    assert.equal(await refusal(pairing.receiveUpgrade(row, { nodeUuid: SELF.nodeUuid, publicKey: PEER.publicKey })), 'HUB_ERR_CONFLICT');
    assert.deepEqual([store.get(row.id)?.peerNodeUuid, store.get(row.id)?.bearerGraceUntil], [null, null]);
  });

  it('refuses a UUID another pairing holds and pins nothing', async () => {
    const { store, pairing, bearerOnly } = setup();
    bearerOnly('first.tail0.ts.net', { peerNodeUuid: PEER.nodeUuid, peerPublicKey: PEER.publicKey });
    const row = bearerOnly('second.tail0.ts.net');
    assert.equal(await refusal(pairing.receiveUpgrade(row, PEER)), 'HUB_ERR_CONFLICT');
    assert.deepEqual([store.get(row.id)?.peerNodeUuid, store.get(row.id)?.bearerGraceUntil], [null, null]);
  });

  it('leaves a pin it already holds for that peer as it is', async () => {
    const { store, pairing, bearerOnly } = setup();
    const row = bearerOnly('peer.tail0.ts.net', { peerNodeUuid: PEER.nodeUuid, peerPublicKey: PEER.publicKey });
    assert.deepEqual(await pairing.receiveUpgrade(row, PEER), SELF);
    assert.equal(store.get(row.id)?.bearerGraceUntil, null, 'no new window for a key already pinned');
  });
});
