import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { openDatabase } from '../store/database.js';
import { PeerStore, type PeerRow } from '../store/peers.js';
import { Background } from '../util/background.js';
import { ManualClock } from '../util/clock.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import type { PairingService } from '../pairing/pairing-service.js';
import { HealthPoller } from './health-poller.js';
import type { PeerClient } from './peer-client.js';

const KEY = 'A'.repeat(43);

/** A poller over a real store; the peer never answers (the rule under test runs before any probe). */
function setup() {
  const clock = new ManualClock();
  const store = new PeerStore(openDatabase(join(mkdtempSync(join(tmpdir(), 'cihub-poller-')), 'hub.db')));
  const client = { call: async () => ({ ok: false, error: 'no answer', auth: 'none' }) } as unknown as PeerClient;
  const pairing = { sweep: () => [] } as unknown as PairingService;
  const identity = { load: async () => ({ ok: false, error: 'unused', nodeUuid: null, publicKey: null }) } as unknown as NodeIdentity;
  const poller = new HealthPoller({ store, client, pairing, identity, pollSeconds: () => 30, clock, logger: pino({ level: 'silent' }), forwardsTo: () => 0, background: new Background({ logger: pino({ level: 'silent' }), clock }) });
  const add = (name: string, extra: Partial<PeerRow>): PeerRow => {
    const row = store.insert({
      nodeFqdn: name,
      direction: 'outbound',
      status: 'connected',
      peerNodeUuid: `00000000-0000-4000-8000-00000000000${name.length % 10}`,
      peerPublicKey: KEY,
      pinVerified: false,
      issuedTokenHash: 'h',
      presentTokenSealed: 's',
      createdAt: new Date(clock.nowMs()).toISOString(),
      expiresAt: null,
    });
    return store.update(row.id, extra)!;
  };
  return { clock, store, poller, add };
}

describe('HealthPoller: the bearer grace window', () => {
  it('unpins a key learned from a request when the window closes with no signed request seen', async () => {
    const { clock, store, poller, add } = setup();
    const row = add('a.tail0.ts.net', { bearerGraceUntil: new Date(clock.nowMs() + 60_000).toISOString() });
    await poller.tick();
    assert.equal(store.get(row.id)?.peerPublicKey, KEY, 'kept while the window is open');
    clock.advance(60_000);
    await poller.tick();
    const after = store.get(row.id)!;
    assert.deepEqual([after.peerNodeUuid, after.peerPublicKey, after.bearerGraceUntil], [null, null, null]);
    assert.equal(after.presentTokenSealed, 's', 'the bearer pairing it rolls back to is kept');
  });

  it('keeps the key of a peer that was seen signing, whatever the window says', async () => {
    const { clock, store, poller, add } = setup();
    const row = add('bb.tail0.ts.net', { bearerGraceUntil: new Date(clock.nowMs() - 1).toISOString(), signedSeenAt: new Date(clock.nowMs()).toISOString() });
    await poller.tick();
    assert.equal(store.get(row.id)?.peerPublicKey, KEY);
  });
});
