import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openDatabase } from './database.js';
import { PeerStore, type NewPeer } from './peers.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

const fresh = () => new PeerStore(openDatabase(join(scratchDir('cihub-peers-'), 'hub.db')));
const row = (nodeFqdn: string, extra: Partial<NewPeer> = {}): NewPeer => ({
  nodeFqdn,
  direction: 'outbound',
  status: 'pending',
  peerNodeUuid: null,
  peerPublicKey: null,
  pinVerified: false,
  issuedTokenHash: null,
  presentTokenSealed: null,
  createdAt: '2026-11-30T12:00:00.000Z',
  expiresAt: '2026-12-01T12:00:00.000Z',
  ...extra,
});

describe('PeerStore', () => {
  it('keeps the listed rows true after every kind of write, though the list is cached', () => {
    const store = fresh();
    assert.deepEqual(store.list(), []);
    const a = store.insert(row('a.tail0.ts.net'));
    assert.deepEqual(
      store.list().map((r) => r.nodeFqdn),
      ['a.tail0.ts.net'],
    );
    store.update(a.id, { status: 'connected', expiresAt: null });
    assert.equal(store.list()[0]?.status, 'connected');
    store.insert(row('b.tail0.ts.net', { expiresAt: '2026-11-30T12:30:00.000Z' }));
    assert.deepEqual(store.deleteExpiredPending('2026-11-30T13:00:00.000Z'), ['b.tail0.ts.net']);
    assert.deepEqual(
      store.list().map((r) => r.nodeFqdn),
      ['a.tail0.ts.net'],
    );
    store.delete(a.id);
    assert.deepEqual(store.list(), []);
  });

  it('replaces a row in one transaction: a refused insert leaves the replaced row where it was', () => {
    const store = fresh();
    const squatter = store.insert(row('a.tail0.ts.net', { direction: 'inbound' }));
    store.insert(row('b.tail0.ts.net'));
    // The name is UNIQUE: an insert under b's name fails after the delete ran inside the transaction.
    assert.throws(() => store.replace(squatter.id, row('b.tail0.ts.net', { direction: 'inbound', pinVerified: true })), /UNIQUE/);
    assert.equal(store.get(squatter.id)?.nodeFqdn, 'a.tail0.ts.net');
    const taken = store.replace(squatter.id, row('a.tail0.ts.net', { direction: 'inbound', pinVerified: true }));
    assert.equal(store.get(squatter.id), null);
    assert.equal(store.byFqdn('a.tail0.ts.net')?.id, taken.id);
    assert.equal(store.list().length, 2);
  });

  it('finds a row by id, name and UUID as last written, through every kind of write', () => {
    const store = fresh();
    const uuid = '22222222-2222-4222-8222-222222222222';
    const a = store.insert(row('a.tail0.ts.net', { peerNodeUuid: uuid, peerPublicKey: 'B'.repeat(43) }));
    const found = () => [store.get(a.id)?.status ?? null, store.byFqdn('a.tail0.ts.net')?.status ?? null, store.byUuid(uuid)?.status ?? null];
    assert.deepEqual(found(), ['pending', 'pending', 'pending']);
    store.update(a.id, { status: 'connected', expiresAt: null });
    assert.deepEqual(found(), ['connected', 'connected', 'connected']);
    store.update(a.id, { nodeFqdn: 'a2.tail0.ts.net' });
    assert.equal(store.byFqdn('a.tail0.ts.net'), null);
    assert.equal(store.byFqdn('a2.tail0.ts.net')?.id, a.id);
    store.delete(a.id);
    assert.deepEqual(found(), [null, null, null]);
    assert.equal(store.get('no-such-id'), null);
  });

  it('hands out rows nobody can change under the next reader', () => {
    const store = fresh();
    store.insert(row('a.tail0.ts.net'));
    assert.ok(Object.isFrozen(store.list()) && Object.isFrozen(store.list()[0]));
  });

  it('refuses a UUID without its public key, and one UUID on two rows', () => {
    const store = fresh();
    assert.throws(() => store.insert(row('a.tail0.ts.net', { peerNodeUuid: '11111111-1111-4111-8111-111111111111' })));
    const key = 'A'.repeat(43);
    store.insert(row('b.tail0.ts.net', { peerNodeUuid: '11111111-1111-4111-8111-111111111111', peerPublicKey: key }));
    assert.throws(() => store.insert(row('c.tail0.ts.net', { peerNodeUuid: '11111111-1111-4111-8111-111111111111', peerPublicKey: key })));
    assert.equal(store.byUuid('11111111-1111-4111-8111-111111111111')?.nodeFqdn, 'b.tail0.ts.net');
  });
});
