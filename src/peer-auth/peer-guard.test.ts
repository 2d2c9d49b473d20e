import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIdentity } from '../identity/node-identity.js';
import { openDatabase } from '../store/database.js';
import { PeerNonces } from '../store/peer-nonces.js';
import { PeerStore, type NewPeer } from '../store/peers.js';
import { Background } from '../util/background.js';
import { ManualClock } from '../util/clock.js';
import { createLogger } from '../util/logger.js';
import { admitPeer, hashToken, type PeerAdmission, type PeerRequest } from './peer-guard.js';
import { signRequest } from './signed-headers.js';

const ALICE_UUID = '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7';
const ALICE_NAME = 'alpha.tail1234.ts.net';
const ALICE_TOKEN = 'alice-bearer-token';
const BOB_NAME = 'bravo.tail1234.ts.net';
const BOB_TOKEN = 'bob-bearer-token';
const PATH = '/api/inference/pool/local/v1/chat/completions';
const alice = generateKeyPairSync('ed25519');
const rawKey = (pair: typeof alice): string => pair.publicKey.export({ format: 'jwk' }).x ?? '';

const root = mkdtempSync(join(tmpdir(), 'cihub-peer-guard-'));
after(() => rmSync(root, { recursive: true, force: true }));

const pairedRow = (extra: Partial<NewPeer>): NewPeer => ({
  nodeFqdn: ALICE_NAME,
  direction: 'outbound',
  status: 'connected',
  peerNodeUuid: null,
  peerPublicKey: null,
  pinVerified: true,
  issuedTokenHash: null,
  presentTokenSealed: null,
  createdAt: '2026-11-30T11:00:00.000Z',
  expiresAt: null,
  ...extra,
});

/**
 * A Hub's side of the guard, on SQLite on disk: Alice is paired with her key pinned and still
 * holds the bearer token this Hub issued her (a pairing from before signatures); Bob is paired
 * by bearer token only.
 */
function hub(o: { dataDir?: string } = {}) {
  const dir = mkdtempSync(join(root, 'hub-'));
  const db = openDatabase(join(dir, 'hub.db'));
  const clock = new ManualClock();
  const logger = createLogger('silent');
  const identity = new NodeIdentity({ db, dataDir: o.dataDir ?? dir, envSecret: null, clock, logger, background: new Background({ logger, clock }) });
  const store = new PeerStore(db);
  const aliceRow = store.insert(
    pairedRow({
      peerNodeUuid: ALICE_UUID,
      peerPublicKey: rawKey(alice),
      issuedTokenHash: hashToken(ALICE_TOKEN),
      presentTokenSealed: 'sealed-token-alice-issued',
      bearerGraceUntil: '2026-12-01T12:00:00.000Z',
    }),
  );
  const bobRow = store.insert(pairedRow({ nodeFqdn: BOB_NAME, issuedTokenHash: hashToken(BOB_TOKEN) }));
  const renames: [string, string][] = [];
  let requireSigned = false;
  const deps = {
    store,
    identity,
    nonces: new PeerNonces(db),
    clock,
    requireSigned: () => requireSigned,
    onRename: (rowId: string, newName: string) => void renames.push([rowId, newName]),
  };
  return {
    store,
    clock,
    identity,
    aliceRow,
    bobRow,
    renames,
    requireSignedPeers: (on: boolean) => void (requireSigned = on),
    admit: (req: PeerRequest): Promise<PeerAdmission> => admitPeer(deps, req),
    /** A request Alice signs for this Hub (or for `recipient`), under the name she claims. */
    async aliceSigns(o: { name?: string; recipient?: string } = {}): Promise<PeerRequest> {
      const me = await identity.load();
      const body = Buffer.from('{"model":"qwen3:8b"}');
      const headers = signRequest({
        sign: (data) => sign(null, data, alice.privateKey),
        senderUuid: ALICE_UUID,
        senderFqdn: o.name ?? ALICE_NAME,
        recipientUuid: o.recipient ?? me.nodeUuid ?? '',
        method: 'POST',
        path: PATH,
        body,
        nowMs: clock.nowMs(),
      });
      return { method: 'POST', url: PATH, headers, body };
    },
    done: () => {
      identity.close();
      db.close();
    },
  };
}

const bearerCall = (headers: Record<string, string>): PeerRequest => ({ method: 'POST', url: PATH, headers, body: Buffer.alloc(0) });
const refusal = (a: PeerAdmission) => (a.ok ? `admitted via ${a.via}` : { reason: a.reason, identityMismatch: a.identityMismatch });

describe('admitPeer: a signed request', () => {
  it('admits a pinned peer by its signature, and that first signature retires both bearer tokens of the pairing', async () => {
    const h = hub();
    const admission = await h.admit(await h.aliceSigns());
    assert.equal(admission.ok && admission.via, 'signed');
    const stored = h.store.get(h.aliceRow.id);
    assert.deepEqual(
      {
        signedSeenAt: stored?.signedSeenAt,
        issuedTokenHash: stored?.issuedTokenHash,
        presentTokenSealed: stored?.presentTokenSealed,
        bearerGraceUntil: stored?.bearerGraceUntil,
      },
      { signedSeenAt: new Date(h.clock.nowMs()).toISOString(), issuedTokenHash: null, presentTokenSealed: null, bearerGraceUntil: null },
    );
    assert.deepEqual(admission.ok && admission.peer, stored, 'the admitted peer is the row as it now stands');
    h.done();
  });

  it('keeps the time a peer was first seen signing: later signatures do not move it', async () => {
    const h = hub();
    await h.admit(await h.aliceSigns());
    const first = h.store.get(h.aliceRow.id)?.signedSeenAt;
    h.clock.advance(60_000);
    const again = await h.admit(await h.aliceSigns());
    assert.equal(again.ok && again.peer.signedSeenAt, first);
    assert.equal(h.store.get(h.aliceRow.id)?.signedSeenAt, first);
    h.done();
  });

  it('refuses the bearer token of a peer once it has been seen signing', async () => {
    const h = hub();
    await h.admit(await h.aliceSigns());
    const admission = await h.admit(bearerCall({ authorization: `Bearer ${ALICE_TOKEN}`, 'x-hub-pool-peer': ALICE_NAME }));
    assert.equal(admission.ok, false);
    h.done();
  });

  it('refuses a replayed request, remembering its nonce on disk', async () => {
    const h = hub();
    const req = await h.aliceSigns();
    assert.equal((await h.admit(req)).ok, true);
    assert.deepEqual(refusal(await h.admit(req)), { reason: 'signature refused (replay)', identityMismatch: false });
    h.done();
  });

  it('says identity-mismatch only for a request addressed to another node UUID', async () => {
    const h = hub();
    const toAnother = await h.aliceSigns({ recipient: '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3' });
    assert.deepEqual(refusal(await h.admit(toAnother)), { reason: 'signature refused (identity-mismatch)', identityMismatch: true });
    const forged = await h.aliceSigns();
    forged.headers['x-hub-pool-peer'] = 'mallory.tail1234.ts.net';
    assert.deepEqual(refusal(await h.admit(forged)), { reason: 'signature refused (bad-signature)', identityMismatch: false });
    assert.equal(h.store.get(h.aliceRow.id)?.issuedTokenHash, hashToken(ALICE_TOKEN), 'a refused signature retires nothing');
    h.done();
  });

  it('refuses a signed request from a node UUID no pairing pins', async () => {
    const h = hub();
    const req = await h.aliceSigns();
    req.headers['x-hub-pool-node'] = 'c4r01000-0000-4000-8000-000000000000';
    assert.deepEqual(refusal(await h.admit(req)), { reason: 'signature refused (unknown-sender)', identityMismatch: false });
    h.done();
  });

  it('judges a request carrying any signed-only header as signed, never falling back to its bearer token', async () => {
    const h = hub();
    await h.identity.load();
    const admission = await h.admit(
      bearerCall({ authorization: `Bearer ${BOB_TOKEN}`, 'x-hub-pool-peer': BOB_NAME, 'x-hub-pool-nonce': 'AAECAwQFBgcICQoLDA0ODw' }),
    );
    assert.deepEqual(refusal(admission), { reason: 'signature refused (missing-headers)', identityMismatch: false });
    h.done();
  });

  it('refuses a signed request on a Hub that never minted a pool identity, and mints none for it', async () => {
    const dir = mkdtempSync(join(root, 'never-pooled-'));
    const db = openDatabase(join(dir, 'hub.db'));
    const clock = new ManualClock();
    const logger = createLogger('silent');
    const identity = new NodeIdentity({ db, dataDir: dir, envSecret: null, clock, logger, background: new Background({ logger, clock }) });
    const deps = { store: new PeerStore(db), identity, nonces: new PeerNonces(db), clock, requireSigned: () => false, onRename: () => undefined };
    const admission = await admitPeer(deps, bearerCall({ 'x-hub-pool-nonce': 'AAECAwQFBgcICQoLDA0ODw' }));
    assert.deepEqual(refusal(admission), { reason: 'this Hub has no pool identity yet', identityMismatch: false });
    // Addressed to a UUID (a peer pinning an identity this name had before its data dir was recreated): named as a mismatch.
    const addressed = await admitPeer(deps, bearerCall({ 'x-hub-pool-recipient': ALICE_UUID, 'x-hub-pool-nonce': 'AAECAwQFBgcICQoLDA0ODw' }));
    assert.deepEqual(refusal(addressed), { reason: 'this Hub has no pool identity yet', identityMismatch: true });
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM hub_pool_identity').get() as { n: number }).n, 0);
    assert.equal(existsSync(join(dir, 'identity.secret')), false);
    identity.close();
    db.close();
  });

  it('refuses every signed request while this Hub has no pool identity', async () => {
    // A data dir under a plain file: the identity secret can be neither read nor created.
    const blocker = join(mkdtempSync(join(root, 'no-identity-')), 'a-file');
    writeFileSync(blocker, '');
    const h = hub({ dataDir: join(blocker, 'data') });
    const req = await h.aliceSigns({ recipient: ALICE_UUID });
    assert.deepEqual(refusal(await h.admit(req)), { reason: 'this Hub has no pool identity yet', identityMismatch: true });
    h.done();
  });
});

describe('admitPeer: a signed request from a pairing not yet approved', () => {
  it('admits it for its route to refuse, and changes nothing: no name recorded, no token retired, not marked as seen signing', async () => {
    const h = hub();
    const pending = h.store.update(h.aliceRow.id, { direction: 'inbound', status: 'pending', expiresAt: '2026-12-02T12:00:00.000Z' })!;
    const admission = await h.admit(await h.aliceSigns({ name: 'trusted-hub.tail1234.ts.net' }));
    assert.equal(admission.ok && admission.peer.status, 'pending');
    assert.deepEqual(h.renames, []);
    assert.deepEqual(h.store.get(h.aliceRow.id), pending);
    h.done();
  });
});

describe('admitPeer: the name a signing peer claims', () => {
  const rows: readonly { claimed: string; renamedTo: string | null }[] = [
    { claimed: ALICE_NAME, renamedTo: null },
    { claimed: 'Alpha.Tail1234.ts.net.', renamedTo: null },
    { claimed: 'alpha-2.tail1234.ts.net', renamedTo: 'alpha-2.tail1234.ts.net' },
    { claimed: 'ALPHA-2.tail1234.ts.net.', renamedTo: 'alpha-2.tail1234.ts.net' },
    { claimed: '100.64.0.7', renamedTo: null },
    { claimed: 'https://alpha-2.tail1234.ts.net', renamedTo: null },
  ];
  for (const r of rows) {
    it(`${JSON.stringify(r.claimed)} ${r.renamedTo === null ? 'is no rename' : `is reported as a rename to ${r.renamedTo}`}, and the request is admitted`, async () => {
      const h = hub();
      const admission = await h.admit(await h.aliceSigns({ name: r.claimed }));
      assert.equal(admission.ok, true);
      assert.deepEqual(h.renames, r.renamedTo === null ? [] : [[h.aliceRow.id, r.renamedTo]]);
      assert.equal(h.store.get(h.aliceRow.id)?.nodeFqdn, ALICE_NAME, 'the row is not renamed here');
      h.done();
    });
  }
});

describe('admitPeer: the legacy bearer token', () => {
  it('admits a peer presenting the token this Hub issued it, under its name in any spelling', async () => {
    const h = hub();
    for (const name of [BOB_NAME, 'Bravo.Tail1234.ts.net.']) {
      const admission = await h.admit(bearerCall({ authorization: `Bearer ${BOB_TOKEN}`, 'x-hub-pool-peer': name }));
      assert.equal(admission.ok && admission.via, 'bearer', name);
      assert.equal(admission.ok && admission.peer.id, h.bobRow.id);
    }
    h.done();
  });

  it("refuses the token on a PIN request still waiting for the peer's signed confirmation (an overheard request confirms nothing)", async () => {
    const h = hub();
    // Alice's row as a PIN request left it on a build that kept the token it sent: her key pinned, not yet approved there.
    h.store.update(h.aliceRow.id, { direction: 'outbound', status: 'pending', pinVerified: true, bearerGraceUntil: null });
    const admission = await h.admit(bearerCall({ authorization: `Bearer ${ALICE_TOKEN}`, 'x-hub-pool-peer': ALICE_NAME }));
    assert.deepEqual(refusal(admission), { reason: 'a pairing made with a PIN confirms with a signature', identityMismatch: false });
    h.done();
  });

  const refused: readonly { name: string; headers: Record<string, string>; reason: string }[] = [
    { name: 'no Authorization header', headers: { 'x-hub-pool-peer': BOB_NAME }, reason: 'no peer credentials' },
    { name: 'no peer name', headers: { authorization: `Bearer ${BOB_TOKEN}` }, reason: 'no peer credentials' },
    { name: 'another scheme than Bearer', headers: { authorization: `Basic ${BOB_TOKEN}`, 'x-hub-pool-peer': BOB_NAME }, reason: 'no peer credentials' },
    { name: 'a wrong token', headers: { authorization: 'Bearer not-the-token', 'x-hub-pool-peer': BOB_NAME }, reason: 'bearer token refused' },
    { name: "another peer's token", headers: { authorization: `Bearer ${ALICE_TOKEN}`, 'x-hub-pool-peer': BOB_NAME }, reason: 'bearer token refused' },
    {
      name: 'a name no peer has',
      headers: { authorization: `Bearer ${BOB_TOKEN}`, 'x-hub-pool-peer': 'charlie.tail1234.ts.net' },
      reason: 'unknown peer or no token issued',
    },
    {
      name: 'a name that is not a peer name',
      headers: { authorization: `Bearer ${BOB_TOKEN}`, 'x-hub-pool-peer': '100.64.0.7' },
      reason: 'unknown peer or no token issued',
    },
  ];
  for (const r of refused) {
    it(`refuses ${r.name}`, async () => {
      const h = hub();
      assert.deepEqual(refusal(await h.admit(bearerCall(r.headers))), { reason: r.reason, identityMismatch: false });
      h.done();
    });
  }

  it('refuses a peer to which no token was issued', async () => {
    const h = hub();
    h.store.update(h.bobRow.id, { issuedTokenHash: null });
    assert.deepEqual(refusal(await h.admit(bearerCall({ authorization: `Bearer ${BOB_TOKEN}`, 'x-hub-pool-peer': BOB_NAME }))), {
      reason: 'unknown peer or no token issued',
      identityMismatch: false,
    });
    h.done();
  });

  it('refuses the token of a peer seen signing, even before it signs here again', async () => {
    const h = hub();
    h.store.update(h.bobRow.id, { signedSeenAt: '2026-11-30T11:30:00.000Z' });
    assert.deepEqual(refusal(await h.admit(bearerCall({ authorization: `Bearer ${BOB_TOKEN}`, 'x-hub-pool-peer': BOB_NAME }))), {
      reason: 'this peer has been seen signing; its bearer token is retired',
      identityMismatch: false,
    });
    h.done();
  });

  it('refuses every bearer token while poolRequireSignedPeers is on, and takes it again once off', async () => {
    const h = hub();
    const call = bearerCall({ authorization: `Bearer ${BOB_TOKEN}`, 'x-hub-pool-peer': BOB_NAME });
    h.requireSignedPeers(true);
    assert.deepEqual(refusal(await h.admit(call)), { reason: 'bearer tokens are refused: poolRequireSignedPeers is on', identityMismatch: false });
    h.requireSignedPeers(false);
    assert.equal((await h.admit(call)).ok, true);
    h.done();
  });

  it('refuses, without throwing, when the stored token hash is damaged (not 32 bytes)', async () => {
    const h = hub();
    h.store.update(h.bobRow.id, { issuedTokenHash: hashToken(BOB_TOKEN).slice(0, 40) });
    assert.deepEqual(refusal(await h.admit(bearerCall({ authorization: `Bearer ${BOB_TOKEN}`, 'x-hub-pool-peer': BOB_NAME }))), {
      reason: 'bearer token refused',
      identityMismatch: false,
    });
    h.done();
  });
});

describe('hashToken', () => {
  it('is the hex SHA-256 of the token, as the issued-token column stores it', () => {
    assert.equal(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
