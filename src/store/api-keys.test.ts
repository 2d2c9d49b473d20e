import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../util/clock.js';
import { ApiKeyStore, hashKey } from './api-keys.js';
import { DATABASE_FILE_NAME, openDatabase, type Db } from './database.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-keys-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

function openStore(): { db: Db; store: ApiKeyStore; clock: ManualClock; dir: string } {
  const dir = mkdtempSync(join(root, 'd-'));
  const db = openDatabase(join(dir, DATABASE_FILE_NAME));
  const clock = new ManualClock();
  return { db, store: new ApiKeyStore(db, clock), clock, dir };
}

/** Every byte the store wrote to disk: the database file and its WAL side files. */
function bytesOnDisk(dir: string): Buffer {
  return Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));
}

describe('ApiKeyStore', () => {
  it('mints keys whose prefix says their scope', () => {
    const { db, store } = openStore();
    try {
      assert.match(store.create('editor', 'inference').key, /^cihub_inf_[A-Za-z0-9_-]{32}$/);
      assert.match(store.create('fleet-qa', 'qa:read').key, /^cihub_qa_[A-Za-z0-9_-]{32}$/);
    } finally {
      db.close();
    }
  });

  it('stores only a hash: the raw key never appears in the database files', () => {
    const { db, store, dir } = openStore();
    const { key } = store.create('editor', 'inference');
    db.close();
    const bytes = bytesOnDisk(dir);
    assert.ok(bytes.includes(hashKey(key)), 'the hash is on disk, so these are the bytes the key went to');
    assert.equal(bytes.includes(key), false);
    assert.equal(bytes.includes(key.slice('cihub_inf_'.length)), false);
  });

  it('looks a live key up by its secret and returns its record', () => {
    const { db, store } = openStore();
    try {
      const { key, record } = store.create('fleet-qa', 'qa:read');
      assert.deepEqual(store.lookup(key), record);
      assert.deepEqual(record, { id: record.id, name: 'fleet-qa', scope: 'qa:read', createdAt: '2026-11-30T12:00:00.000Z', revokedAt: null });
    } finally {
      db.close();
    }
  });

  it('finds nothing for a secret it never minted, or one off by a character', () => {
    const { db, store } = openStore();
    try {
      const { key } = store.create('editor', 'inference');
      assert.equal(store.lookup('cihub_inf_nope'), null);
      assert.equal(store.lookup(`${key}x`), null);
      assert.equal(store.lookup(key.toUpperCase()), null);
    } finally {
      db.close();
    }
  });

  it('revokes once: the key stops working and a second revoke says there was nothing live', () => {
    const { db, store, clock } = openStore();
    try {
      const { key, record } = store.create('editor', 'inference');
      clock.advance(60_000);
      assert.equal(store.revoke(record.id), true);
      assert.equal(store.lookup(key), null);
      assert.equal(store.revoke(record.id), false);
      assert.equal(store.list()[0]?.revokedAt, '2026-11-30T12:01:00.000Z');
    } finally {
      db.close();
    }
  });

  it('does not revoke anything for an unknown id', () => {
    const { db, store } = openStore();
    try {
      const { key } = store.create('editor', 'inference');
      assert.equal(store.revoke('000000000000'), false);
      assert.notEqual(store.lookup(key), null);
    } finally {
      db.close();
    }
  });

  it('lists every key, revoked ones too, oldest first, and never the secret', () => {
    const { db, store, clock } = openStore();
    try {
      const a = store.create('a', 'inference');
      clock.advance(1000);
      const b = store.create('b', 'qa:read');
      store.revoke(a.record.id);
      const listed = store.list();
      assert.deepEqual(
        listed.map((r) => r.name),
        ['a', 'b'],
      );
      assert.notEqual(listed[0]?.revokedAt, null);
      assert.equal(listed[1]?.revokedAt, null);
      const text = JSON.stringify(listed);
      assert.equal(text.includes(a.key) || text.includes(b.key), false);
    } finally {
      db.close();
    }
  });

  it('keys survive a restart of the store', () => {
    const { db, store, dir } = openStore();
    const { key, record } = store.create('editor', 'inference');
    db.close();
    const reopened = openDatabase(join(dir, DATABASE_FILE_NAME));
    try {
      assert.deepEqual(new ApiKeyStore(reopened, new ManualClock()).lookup(key), record);
    } finally {
      reopened.close();
    }
  });
});
