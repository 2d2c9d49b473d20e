import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './database.js';
import { NONCE_TTL_MS, PeerNonces } from './peer-nonces.js';

describe('PeerNonces', () => {
  it('refuses a nonce it has seen, even after the database is reopened (a restart)', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cihub-nonce-')), 'hub.db');
    const first = openDatabase(path);
    assert.equal(new PeerNonces(first).remember('peer\nn1', 1_000), true);
    assert.equal(new PeerNonces(first).remember('peer\nn1', 1_001), false);
    first.close();
    const reopened = new PeerNonces(openDatabase(path));
    assert.equal(reopened.remember('peer\nn1', 2_000), false, 'the replay is refused after a restart');
    assert.equal(reopened.remember('peer\nn2', 2_000), true);
  });

  it('forgets a nonce once it can no longer pass the skew check, and prunes it', () => {
    const nonces = new PeerNonces(openDatabase(join(mkdtempSync(join(tmpdir(), 'cihub-nonce-')), 'hub.db')));
    nonces.remember('k', 0);
    assert.equal(nonces.remember('k', NONCE_TTL_MS), true);
    assert.equal(nonces.prune(3 * NONCE_TTL_MS), 1);
  });
});
