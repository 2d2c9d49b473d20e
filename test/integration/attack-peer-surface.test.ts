/**
 * The peer and pairing surface under attack, on real Hub processes (the peer-surface audit):
 * a public key spelled so that it verifies but cannot be fingerprinted, and what a stored one
 * does to status and the peer list; a requester not yet approved that signs under a new name;
 * a peer asking for a model's details while this Hub takes no work from it; a stranger's signing
 * header on a Hub that never pooled; pairing requests to a Hub whose sealed key cannot be opened.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { DATABASE_FILE_NAME } from '../../src/store/database.js';
import {
  FakePeer,
  POOL,
  eventually,
  fqdn,
  mintPin,
  pairFakeWithPin,
  peerNamed,
  reservePorts,
  send,
  startNamedHub,
  type HubProcess,
} from './pairing-fixtures.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The same 32 key bytes spelled another way: the last of 43 characters carries two bits the
 * decoder drops, so flipping one of them changes the text and not the key.
 */
function nonCanonical(publicKey: string): string {
  const last = BASE64URL.indexOf(publicKey.at(-1)!);
  const other = publicKey.slice(0, -1) + BASE64URL[last ^ 1];
  assert.deepEqual(Buffer.from(other, 'base64url'), Buffer.from(publicKey, 'base64url'), 'the two spellings decode to the same bytes');
  return other;
}

describe('a public key in a non-canonical spelling', () => {
  const NAME = fqdn('key-spelling');
  let hub: HubProcess;
  let port: number;

  before(async () => {
    ({ hub: port } = await reservePorts(['hub']));
    hub = await startNamedHub({ name: NAME, port, origins: {} });
  });
  after(async () => {
    await hub?.stop();
  });

  it('is refused on a PIN request (400), which plants no row; status and the peer list still answer', async () => {
    const fake = new FakePeer('odd-spelling');
    const { pin } = await mintPin(hub);
    const body = { fromNodeFqdn: fake.name, token: fake.token, pin, nodeUuid: fake.uuid, publicKey: nonCanonical(fake.publicKey) };
    const asked = await send(hub.url, 'POST', `${POOL}/pair/request`, { body });
    assert.equal(asked.status, 400, asked.text);
    assert.equal(asked.json.error.code, 'HUB_ERR_BAD_REQUEST');
    assert.match(asked.json.error.message, /publicKey \(.*canonical unpadded base64url/, 'the refusal says what a key must be');
    assert.equal((await hub.api('GET', `${POOL}/status`)).status, 200);
    assert.equal(await peerNamed(hub, fake.name), null);
    // The PIN was not spent on it: the same requester with its key as Node writes it is taken.
    assert.equal((await fake.requestPairing(hub, pin)).status, 200);
  });

  it('already stored (an older build, an edited database) shows as no fingerprint on its row; status and the peer list answer 200', async () => {
    const fake = new FakePeer('stored-odd-spelling');
    const { pin } = await mintPin(hub);
    assert.equal((await fake.requestPairing(hub, pin)).status, 200);
    await hub.stop();
    const db = new Database(join(hub.dataDir, DATABASE_FILE_NAME));
    try {
      const changed = db.prepare('UPDATE hub_pool_peer SET peer_public_key = ? WHERE node_fqdn = ?').run(nonCanonical(fake.publicKey), fake.name);
      assert.equal(changed.changes, 1);
    } finally {
      db.close();
    }
    hub = await startNamedHub({ name: NAME, port, origins: {}, dataDir: hub.dataDir });
    const status = await hub.api<{ peers: Array<{ nodeFqdn: string; fingerprint: string | null }> }>('GET', `${POOL}/status`);
    assert.equal(status.status, 200, JSON.stringify(status.json));
    assert.equal(status.json.peers.find((p) => p.nodeFqdn === fake.name)?.fingerprint, null);
    const row = await peerNamed(hub, fake.name);
    assert.ok(row, 'the peer list answers and names the row');
    assert.equal(row.fingerprint, null);
  });
});

describe('a requester not yet approved, signing under another name', () => {
  const CAPS = `${POOL}/capabilities`;
  let hub: HubProcess;
  const approved = new FakePeer('approved-peer');
  const requester = new FakePeer('pending-requester');

  before(async () => {
    await approved.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('renames'), port: ports.hub, origins: { [approved.name]: approved.origin } });
  });
  after(async () => {
    await hub?.stop();
    await approved.close();
  });

  it('cannot rename its pending request; an approved peer signing the same way is renamed', async () => {
    const { hubUuid } = await pairFakeWithPin(hub, approved);
    const { pin } = await mintPin(hub);
    assert.equal((await requester.requestPairing(hub, pin)).status, 200);
    const trusted = fqdn('trusted-name');
    const refused = await requester.signed(hub, { recipient: hubUuid, method: 'GET', path: CAPS, senderFqdn: trusted });
    assert.equal(refused.status, 401, refused.text);
    // The approved peer's rename is recorded after the requester's would have been, and applied
    // by the same tick or a later one: once it shows, the requester's has had its chance.
    const moved = fqdn('approved-peer-moved');
    assert.equal((await approved.signed(hub, { recipient: hubUuid, method: 'GET', path: CAPS, senderFqdn: moved })).status, 200);
    await eventually(async () => (await peerNamed(hub, moved)) !== null, 'the approved peer renamed');
    assert.equal(await peerNamed(hub, trusted), null, 'the pending request took the name it signed under');
    assert.equal((await peerNamed(hub, requester.name))?.status, 'pending');
  });
});

describe("a peer's /local/api/show while this Hub takes no work from it", () => {
  const MODEL = 'qwen3:8b';
  const SHOW = `${POOL}/local/api/show`;
  let engine: SimEngine;
  let hub: HubProcess;
  let hubUuid: string;
  const peer = new FakePeer('show-asker');

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await peer.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('show-switches'), port: ports.hub, origins: { [peer.name]: peer.origin }, env: { OLLAMA_URL: engine.url } });
    ({ hubUuid } = await pairFakeWithPin(hub, peer));
  });
  after(async () => {
    await hub?.stop();
    await Promise.all([engine?.close(), peer.close()]);
  });

  const show = () => peer.signed(hub, { recipient: hubUuid, method: 'POST', path: SHOW, body: { model: MODEL } });

  async function refusedWith(off: () => Promise<unknown>, on: () => Promise<unknown>): Promise<void> {
    await off();
    try {
      const answer = await show();
      assert.equal(answer.status, 503, answer.text);
      assert.match(answer.text, /not taking work from peers/);
    } finally {
      await on();
    }
  }

  it('answers while every switch is on', async () => {
    const answer = await show();
    assert.equal(answer.status, 200, answer.text);
  });

  it('is refused 503 with inbound off', async () => {
    const set = (poolInboundEnabled: boolean) => hub.api('PATCH', `${POOL}/settings`, { poolInboundEnabled });
    await refusedWith(
      () => set(false),
      () => set(true),
    );
  });

  it('is refused 503 with the master switch off', async () => {
    const set = (poolEnabled: boolean) => hub.api('PATCH', `${POOL}/settings`, { poolEnabled });
    await refusedWith(
      () => set(false),
      () => set(true),
    );
  });

  it('is refused 503 while this peer is disabled', async () => {
    const id = (await peerNamed(hub, peer.name))!.id;
    await refusedWith(
      () => hub.api('POST', `${POOL}/peers/${id}/disable`),
      () => hub.api('POST', `${POOL}/peers/${id}/enable`),
    );
  });
});

describe('a signing header from a stranger on a Hub that never pooled', () => {
  let hub: HubProcess;
  before(async () => {
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('never-pooled'), port: ports.hub, origins: {} });
  });
  after(async () => {
    await hub?.stop();
  });

  it('is refused 401, and the Hub mints no pool identity for it', async () => {
    const strangers: Record<string, string>[] = [
      { 'x-hub-pool-nonce': 'x' },
      { 'x-hub-pool-node': '6f1c2a3b-4d5e-4f60-8a71-92b3c4d5e6f7', 'x-hub-pool-signature': 'v1.ed25519.AA' },
    ];
    for (const headers of strangers) {
      const answer = await send(hub.url, 'GET', `${POOL}/capabilities`, { headers });
      assert.equal(answer.status, 401, answer.text);
    }
    const status = await hub.api<{ localNode: { identity: unknown } }>('GET', `${POOL}/status`);
    assert.equal(status.json.localNode.identity, null);
    assert.equal(existsSync(join(hub.dataDir, 'identity.secret')), false);
    assert.doesNotMatch(hub.log(), /pool identity minted/);
  });
});

describe('pairing requests to a Hub whose sealed identity key cannot be opened', () => {
  const NAME = fqdn('sealed-shut');
  let hub: HubProcess;
  before(async () => {
    const ports = await reservePorts(['hub']);
    const first = await startNamedHub({ name: NAME, port: ports.hub, origins: {} });
    await mintPin(first);
    await first.stop();
    // An ordinary reinstall that regenerates the secret beside the kept database.
    writeFileSync(join(first.dataDir, 'identity.secret'), `${randomBytes(32).toString('hex')}\n`);
    hub = await startNamedHub({ name: NAME, port: ports.hub, origins: {}, dataDir: first.dataDir });
  });
  after(async () => {
    await hub?.stop();
  });

  it('answers each 503 HUB_ERR_IDENTITY_UNAVAILABLE naming no path, and logs the cause once, not per request', async () => {
    // Without a PIN, and with one (which carries an identity claim, so this Hub's own is asked for first).
    for (let i = 0; i < 3; i++) {
      const asked = await new FakePeer(`hopeful-${i}`).requestPairing(hub, i === 0 ? undefined : '123456');
      assert.equal(asked.status, 503, asked.text);
      assert.equal(asked.json.error.code, 'HUB_ERR_IDENTITY_UNAVAILABLE');
      assert.doesNotMatch(asked.text, new RegExp(hub.dataDir));
    }
    const errors = hub
      .log()
      .split('\n')
      .filter((l) => l.startsWith('{') && (JSON.parse(l) as { level: number }).level >= 50);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0]!, /cannot be unsealed/);
  });
});
