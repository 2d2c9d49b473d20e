import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { join } from 'node:path';
import { openDatabase } from './database.js';
import { NONCE_TTL_MS, PeerNonces } from './peer-nonces.js';
import { signRequest } from '../peer-auth/signed-headers.js';
import { SKEW_WINDOW_MS, verifySignedRequest } from '../peer-auth/verify-signed.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

describe('PeerNonces', () => {
  it('refuses a nonce it has seen, even after the database is reopened (a restart)', () => {
    const path = join(scratchDir('cihub-nonce-'), 'hub.db');
    const first = openDatabase(path);
    assert.equal(new PeerNonces(first).remember('peer\nn1', 1_000), true);
    assert.equal(new PeerNonces(first).remember('peer\nn1', 1_001), false);
    first.close();
    const reopened = new PeerNonces(openDatabase(path));
    assert.equal(reopened.remember('peer\nn1', 2_000), false, 'the replay is refused after a restart');
    assert.equal(reopened.remember('peer\nn2', 2_000), true);
  });

  it('forgets a nonce once it can no longer pass the skew check, and prunes it', () => {
    const nonces = new PeerNonces(openDatabase(join(scratchDir('cihub-nonce-'), 'hub.db')));
    nonces.remember('k', 0);
    assert.equal(nonces.remember('k', NONCE_TTL_MS), false, 'still remembered at the last millisecond of its lifetime');
    assert.equal(nonces.remember('k', NONCE_TTL_MS + 1), true);
    assert.equal(nonces.prune(3 * NONCE_TTL_MS), 1);
  });
});

describe('PeerNonces: pruning forgets only what can no longer be replayed', () => {
  // Each row remembers keys at the given times, prunes at pruneAtMs, then offers every key again
  // at that instant: a key still live must be refused, an expired one is new again.
  const rows: readonly { name: string; seenAtMs: Readonly<Record<string, number>>; pruneAtMs: number; pruned: number; refused: readonly string[] }[] = [
    { name: 'keeps a nonce one millisecond before its lifetime ends', seenAtMs: { a: 0 }, pruneAtMs: NONCE_TTL_MS - 1, pruned: 0, refused: ['a'] },
    { name: 'keeps a nonce at the last millisecond of its lifetime', seenAtMs: { a: 0 }, pruneAtMs: NONCE_TTL_MS, pruned: 0, refused: ['a'] },
    { name: 'drops a nonce one millisecond after its lifetime', seenAtMs: { a: 0 }, pruneAtMs: NONCE_TTL_MS + 1, pruned: 1, refused: [] },
    {
      name: 'drops the expired and keeps the live when both are stored',
      seenAtMs: { old: 0, mid: NONCE_TTL_MS / 2, fresh: NONCE_TTL_MS },
      pruneAtMs: NONCE_TTL_MS + 1,
      pruned: 1,
      refused: ['mid', 'fresh'],
    },
    { name: 'drops nothing from a store of live nonces', seenAtMs: { a: 10, b: 20, c: 30 }, pruneAtMs: 40, pruned: 0, refused: ['a', 'b', 'c'] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const nonces = new PeerNonces(openDatabase(join(scratchDir('cihub-nonce-'), 'hub.db')));
      for (const [key, atMs] of Object.entries(row.seenAtMs)) assert.equal(nonces.remember(key, atMs), true);
      assert.equal(nonces.prune(row.pruneAtMs), row.pruned);
      const refusedNow = Object.keys(row.seenAtMs).filter((key) => !nonces.remember(key, row.pruneAtMs));
      assert.deepEqual(refusedNow, row.refused);
    });
  }
});

describe('a signed request checked against the database-backed nonce store', () => {
  const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
  const ALICE = '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7';
  const BOB = '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3';
  const alice = generateKeyPairSync('ed25519');
  const aliceKey = alice.publicKey.export({ format: 'jwk' }).x ?? '';
  const path = '/api/inference/pool/local/v1/chat/completions';
  const body = Buffer.from('{"model":"m"}');
  // Alice's clock is as far ahead as the skew check allows: her timestamp stays acceptable for
  // two skew windows of Bob's time, the longest a captured request can be replayed.
  const headers = signRequest({
    sign: (data) => sign(null, data, alice.privateKey),
    senderUuid: ALICE,
    senderFqdn: 'alpha.tail1234.ts.net',
    recipientUuid: BOB,
    method: 'POST',
    path,
    body,
    nowMs: T0 + SKEW_WINDOW_MS,
  });
  const receive = (nonces: PeerNonces, nowMs: number) => {
    const r = verifySignedRequest({ headers, method: 'POST', path, body, myUuid: BOB, nowMs, peerKey: (uuid) => (uuid === ALICE ? aliceKey : null), nonces });
    return r.ok ? 'accepted' : r.reason;
  };

  for (const [name, afterMs] of [
    ['a second later', 1_000],
    ['one skew window later', SKEW_WINDOW_MS],
    ['at the last millisecond its timestamp still passes', 2 * SKEW_WINDOW_MS],
  ] as const) {
    it(`refuses a replay ${name}, after the pruner ran at that moment`, () => {
      const nonces = new PeerNonces(openDatabase(join(scratchDir('cihub-nonce-'), 'hub.db')));
      assert.equal(receive(nonces, T0), 'accepted');
      nonces.prune(T0 + afterMs);
      assert.equal(receive(nonces, T0 + afterMs), 'replay');
    });
  }

  it('once the timestamp is too old the skew check refuses it, so forgetting the nonce then is safe', () => {
    const nonces = new PeerNonces(openDatabase(join(scratchDir('cihub-nonce-'), 'hub.db')));
    assert.equal(receive(nonces, T0), 'accepted');
    assert.equal(nonces.prune(T0 + 2 * SKEW_WINDOW_MS + 1), 1);
    assert.equal(receive(nonces, T0 + 2 * SKEW_WINDOW_MS + 1), 'skew');
  });
});
